import { expect } from 'chai';
import { createLogger, dropTestDatabase, newId, now, testEnv } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { IdentifierType, type Contact } from '@svc/proto/contacts/v1';
import { Envelope } from '@svc/proto/events/v1';
import { DeliveryStatus, MessageDirection, MessageType, type Message } from '@svc/proto/inbox/v1';
import { ChannelsApp, channelsConfig } from '../src';
import type { DeliveryBackends } from '../src/delivery/backends';
import { DeliveryConsumer } from '../src/delivery/consumer';
import { ChannelRateLimits } from '../src/delivery/rate-limits';
import { DEFAULT_DELIVERY_RETRY, deliveryBackoffMs, mayRetry } from '../src/delivery/policy';
import type { Reauthorizations } from '../src/delivery/reauthorization';
import { DeliverySender } from '../src/delivery/sender';
import { OutboundDeliveryRow } from '../src/entities';
import type { PlatformChannelType } from '../src/entities/platform-channel';
import type { ConnectedChannel, OutboundMessage, SendResult } from '../src/platforms/adapter';
import { TestAdapter, insertPlatformChannel } from './support/test-adapter';

/** An adapter that records every send, answers after `delayMs`, and fails the sends `script` names. */
class SendingAdapter extends TestAdapter {
  override readonly rateLimit = { perSecond: 1_000, burst: 1_000 };
  readonly sent: OutboundMessage[] = [];
  delayMs = 0;
  next: SendResult[] = [];
  /** The answer to one message's send, whatever order a pass sends them in (sends run concurrently). */
  readonly answers = new Map<string, SendResult>();

  override async send(_channel: ConnectedChannel, message: OutboundMessage): Promise<SendResult> {
    this.sent.push(message);
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return (
      this.answers.get(message.messageId) ??
      this.next.shift() ?? { ok: true, platformMessageIds: [`p-${message.messageId}`] }
    );
  }
}

/** The inbox and contacts as the sender sees them: every message is a TEXT, every contact is user `u-<id>`. */
class StubBackends {
  readonly reports: { messageIds: string[]; status: DeliveryStatus; reason?: string }[] = [];

  messageForDelivery(_orgId: string, messageId: string) {
    const message = {
      _id: messageId,
      type: MessageType.TEXT,
      text: `text of ${messageId}`,
      deleted: false,
      media: [],
      buttons: [],
    } as unknown as Message;
    return Promise.resolve({ message, channelId: '', channelType: 'CHAT_APP_C', contactId: '' });
  }

  contact(_orgId: string, id: string): Promise<Contact> {
    return Promise.resolve({
      identities: [{ type: IdentifierType.CHANNEL_USER_ID, value: `u-${id}`, channelIntegrationId: channelId }],
    } as unknown as Contact);
  }

  updateDeliveryStatus(_orgId: string, _chatId: string, messageIds: string[], status: DeliveryStatus, reason?: string) {
    this.reports.push({ messageIds, status, ...(reason ? { reason } : {}) });
    return Promise.resolve({ changedMessageIds: messageIds });
  }
}

let channelId = '';

describe('channels: outbound delivery (consumer, sender)', () => {
  let app: ChannelsApp;
  let orgId = '';
  const adapter = new SendingAdapter(ChannelType.CHAT_APP_C as PlatformChannelType);

  before(async () => {
    app = new ChannelsApp(channelsConfig(testEnv('channels')), {
      adapters: new Map([[ChannelType.CHAT_APP_C as PlatformChannelType, adapter]]),
    });
    await app.start();
    // These tests drive their own consumer and senders.
    await app.stopDelivery();
    ({ channelId, orgId } = await insertPlatformChannel(app.dataSource, app.platformChannels!));
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const rows = () => app.dataSource.getRepository(OutboundDeliveryRow);
  const created = (extra: { channel?: string; internal?: boolean; direction?: MessageDirection } = {}) =>
    Envelope.fromPartial({
      id: newId(),
      type: 'message.created',
      orgId,
      message: {
        messageId: newId(),
        chatId: newId(),
        contactId: newId(),
        channelId: extra.channel ?? channelId,
        direction: extra.direction ?? MessageDirection.OUTBOUND,
        internal: extra.internal ?? false,
        text: 'hi',
      },
    });

  function sender(backends: StubBackends, leaseMs = 60_000) {
    const reauthorizations = { mark: () => Promise.resolve() } as unknown as Reauthorizations;
    return new DeliverySender(
      app.dataSource,
      app.platformChannels!,
      app.adapters,
      backends as unknown as DeliveryBackends,
      reauthorizations,
      createLogger('delivery-test', 'silent'),
      { pollMs: 60_000, leaseMs },
    );
  }

  /** One pass of a sender started for it. */
  async function onePass(running: DeliverySender): Promise<void> {
    running.start();
    try {
      await running.runOnce();
    } finally {
      await running.stop();
    }
  }

  describe('the consumer', () => {
    const consumer = () => new DeliveryConsumer(app.dataSource, () => undefined, createLogger('test', 'silent'));

    it('queues an outbound message of a platform channel once: a redelivered event changes nothing', async () => {
      const event = created();
      const id = event.message?.messageId ?? '';
      await consumer().queue([event]);
      const first = await rows().findOneByOrFail({ id });
      expect([first.state, first.attempts, first.round]).to.deep.equal(['PENDING', 0, 1]);
      await rows().update({ id }, { state: 'SENT', platformMessageIds: ['p-1'] });
      await consumer().queue([event, event]);
      const after = await rows().findBy({ id });
      expect(after.map((r) => [r.state, r.platformMessageIds, r.updatedAt.getTime()])).to.deep.equal([
        ['SENT', ['p-1'], first.updatedAt.getTime()],
      ]);
    });

    it('leaves notes, inbound messages and messages of channels that are not platform channels alone', async () => {
      const skipped = [
        created({ internal: true }),
        created({ direction: MessageDirection.INBOUND }),
        created({ channel: newId() }),
      ];
      await consumer().queue(skipped);
      expect(await rows().countBy({ orgId, chatId: skipped[0]?.message?.chatId ?? '' })).to.equal(0);
      for (const event of skipped)
        expect(await rows().existsBy({ id: event.message?.messageId ?? '' })).to.equal(false);
    });
  });

  describe('the sender', () => {
    beforeEach(async () => {
      await rows().delete({ orgId });
      adapter.sent.length = 0;
      adapter.delayMs = 0;
      adapter.next = [];
    });

    async function queued(count: number): Promise<string[]> {
      const events = Array.from({ length: count }, () => created());
      await new DeliveryConsumer(app.dataSource, () => undefined, createLogger('test', 'silent')).queue(events);
      return events.map((e) => e.message?.messageId ?? '');
    }

    it('sends each due message once even with two replicas claiming at the same time, and reports SENT', async () => {
      const ids = await queued(12);
      adapter.delayMs = 5;
      const backends = new StubBackends();
      const [one, two] = [sender(backends), sender(backends)];
      one.start();
      two.start();
      try {
        await Promise.all([one.runOnce(), two.runOnce()]);
      } finally {
        await Promise.all([one.stop(), two.stop()]);
      }
      expect(adapter.sent.map((m) => m.messageId).sort()).to.deep.equal([...ids].sort());
      expect(adapter.sent[0]?.recipient).to.match(/^u-/);
      const sent = await rows().findBy({ orgId });
      expect(sent.every((r) => r.state === 'SENT' && r.attempts === 1 && r.inboxReported)).to.equal(true);
      expect(backends.reports.filter((r) => r.status === DeliveryStatus.SENT)).to.have.length(12);
    });

    it('declares an attempt whose lease ran out with no answer in doubt: FAILED, reported, never sent again', async () => {
      const [id = ''] = await queued(1);
      const started = new Date(now().getTime() - 10_000);
      await rows().update(
        { id },
        { state: 'SENDING', attempts: 1, attemptStartedAt: started, leaseUntil: new Date(started.getTime() + 5_000) },
      );
      const backends = new StubBackends();
      await onePass(sender(backends));
      const row = await rows().findOneByOrFail({ id });
      expect([row.state, row.failureKind, row.failureCode, row.inboxReported]).to.deep.equal([
        'FAILED',
        'IN_DOUBT',
        'in_doubt',
        true,
      ]);
      expect(adapter.sent).to.deep.equal([]);
      expect(backends.reports).to.have.length(1);
      expect(backends.reports[0]?.status).to.equal(DeliveryStatus.FAILED);
      expect(backends.reports[0]?.reason).to.match(/may or may not have received it.*\(in_doubt\)$/);
    });

    it('fails a permanent refusal at once with the platform’s code, and retries a transient one later', async () => {
      const [permanent = '', transient = ''] = await queued(2);
      adapter.answers.set(permanent, {
        ok: false,
        error: { transient: false, code: '131026', message: 'Message undeliverable' },
      });
      adapter.answers.set(transient, {
        ok: false,
        error: { transient: true, code: '429', message: 'Too Many Requests', retryAfterMs: 30_000 },
      });
      const backends = new StubBackends();
      await onePass(sender(backends));
      const failed = await rows().findOneByOrFail({ id: permanent });
      expect([failed.state, failed.failureKind, failed.failureCode]).to.deep.equal(['FAILED', 'PERMANENT', '131026']);
      expect(backends.reports).to.deep.include({
        messageIds: [permanent],
        status: DeliveryStatus.FAILED,
        reason: 'Message undeliverable (131026)',
      });
      const later = await rows().findOneByOrFail({ id: transient });
      expect([later.state, later.attempts, later.failureCode]).to.deep.equal(['PENDING', 1, '429']);
      expect(later.nextAttemptAt.getTime() - Date.now(), 'the platform’s retry-after').to.be.greaterThan(25_000);
    });

    it('resumes a multi-part message after the parts an attempt got taken: none is sent twice (decision 0141)', async () => {
      const [id = ''] = await queued(1);
      adapter.next = [
        { ok: false, error: { transient: true, code: 'http_503', message: 'Unavailable' }, partsTaken: ['part-1'] },
      ];
      const backends = new StubBackends();
      await onePass(sender(backends));
      const waiting = await rows().findOneByOrFail({ id });
      expect([waiting.state, waiting.platformMessageIds]).to.deep.equal(['PENDING', ['part-1']]);
      await rows().update({ id }, { nextAttemptAt: new Date(now().getTime() - 1) });
      await onePass(sender(backends));
      expect(adapter.sent.map((m) => m.fromPart)).to.deep.equal([0, 1]);
      const sent = await rows().findOneByOrFail({ id });
      expect([sent.state, sent.platformMessageIds]).to.deep.equal(['SENT', ['part-1', `p-${id}`]]);
    });
  });

  describe('the per-channel rate limit', () => {
    it('lets a burst through, then one send per 1/rate seconds, each channel on its own bucket', () => {
      const limits = new ChannelRateLimits();
      const rate = { perSecond: 4, burst: 3 };
      const at = 1_000_000;
      expect([1, 2, 3].map(() => limits.take('a', rate, at))).to.deep.equal([0, 0, 0]);
      expect(limits.take('a', rate, at)).to.equal(250);
      expect(limits.take('b', rate, at), 'another channel').to.equal(0);
      expect(limits.take('a', rate, at + 250)).to.equal(0);
    });
  });

  describe('the retry policy', () => {
    it('waits a random time up to the capped exponential delay, never less than the platform asked', () => {
      const policy = DEFAULT_DELIVERY_RETRY;
      expect(deliveryBackoffMs(1, policy, 0, () => 0.999)).to.equal(999);
      expect(deliveryBackoffMs(4, policy, 0, () => 0.5)).to.equal(4_000);
      expect(deliveryBackoffMs(30, policy, 0, () => 1)).to.equal(policy.maxBackoffMs);
      expect(deliveryBackoffMs(3, policy, 0, () => 0)).to.equal(0);
      expect(deliveryBackoffMs(3, policy, 7_000, () => 0)).to.equal(7_000);
    });

    it('gives up after the attempts or past the maximum age', () => {
      const policy = { ...DEFAULT_DELIVERY_RETRY, attempts: 3, maxAgeMs: 60_000 };
      const queuedAt = new Date(0);
      expect(mayRetry(2, queuedAt, new Date(1_000), policy)).to.equal(true);
      expect(mayRetry(3, queuedAt, new Date(1_000), policy)).to.equal(false);
      expect(mayRetry(1, queuedAt, new Date(61_000), policy)).to.equal(false);
    });
  });
});
