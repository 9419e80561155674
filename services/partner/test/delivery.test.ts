import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { Webhook } from 'standardwebhooks';
import { eventually } from '@svc/kit';
import { PartnerWebhookDisabledReason as DisabledReason } from '@svc/proto/partner/v1/partner_webhooks';
import { RETRY_DELAYS_MS } from '../src/domain/delivery/schedule';
import { PartnerWebhookRow } from '../src/entities';
import {
  type Receiver,
  TestClock,
  addWebhook,
  attemptsOf,
  deliveriesOf,
  DeliveryStatus,
  engineOf,
  fanoutOf,
  messageCreated,
  newSecret,
  openDeliveryWorld,
  closeDeliveryWorld,
  webhookOf,
  WebhookStatus,
  PROVIDER,
  ROTATION_GRACE_MS,
  webhookSecrets,
  type Received,
} from './delivery-fixture';

/** The standardwebhooks package's own verifier over what the receiver got: answers the body it vouches for. */
function verified(secret: string, received: Received | undefined): unknown {
  if (!received) throw new Error('nothing received');
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
}

describe('partner delivery engine', () => {
  let dataSource: DataSource;
  let receiver: Receiver;
  const secret = newSecret();

  beforeEach(async () => ({ dataSource, receiver } = await openDeliveryWorld('partner_delivery')));
  afterEach(() => closeDeliveryWorld({ dataSource, receiver }));

  it('delivers a message.created signed per Standard Webhooks, the attempt logged', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    const event = messageCreated('hello there');
    expect(await fanoutOf(dataSource, clock).record([event])).to.equal(1);
    await engineOf(dataSource, clock).sweepOnce();

    const body = verified(secret, receiver.received[0]) as { type: string; data: Record<string, unknown> };
    expect(body.type).to.equal('message.created');
    expect(body.data).to.include({ clientOrgId: event.clientOrgId, text: 'hello there' });
    const [delivery] = await deliveriesOf(dataSource, webhook.id);
    expect(receiver.received[0]?.headers['webhook-id'])
      .to.equal(delivery?.id)
      .and.match(/^msg_[0-9a-f]{24}$/);
    expect(delivery?.status).to.equal(DeliveryStatus.DELIVERED);
    const attempts = await attemptsOf(dataSource, delivery?.id ?? '');
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.responseExcerpt, a.error])).to.deep.equal([
      [1, 200, 'ok', null],
    ]);
  });

  it('a redelivered event creates one delivery', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    const event = messageCreated();
    const fanout = fanoutOf(dataSource, clock);
    expect(await fanout.record([event])).to.equal(1);
    expect(await fanout.record([event, event])).to.equal(0);
    expect(await deliveriesOf(dataSource, webhook.id)).to.have.length(1);
  });

  it('sends nothing to a disabled webhook or one not subscribed to the kind', async () => {
    const clock = new TestClock();
    await addWebhook(dataSource, clock.now(), {
      url: receiver.url,
      secret,
      status: WebhookStatus.DISABLED,
    });
    await addWebhook(dataSource, clock.now(), { url: receiver.url, secret, events: ['contact.created'] });
    expect(await fanoutOf(dataSource, clock).record([messageCreated()])).to.equal(0);
  });

  it('retries after a 500 and a timeout on the schedule, then delivers (every attempt verifies)', async () => {
    // Three minutes back, so the moved clock stays within the verifier's five-minute tolerance of now.
    const clock = new TestClock(Date.now() - 180_000);
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    await fanoutOf(dataSource, clock).record([messageCreated()]);
    const engine = engineOf(dataSource, clock, { timeoutMs: 300 });
    receiver.answer({ status: 500, body: 'boom' }, 'hang');

    await engine.sweepOnce();
    let [delivery] = await deliveriesOf(dataSource, webhook.id);
    expect(delivery?.nextAttemptAt?.getTime()).to.equal(clock.now().getTime() + RETRY_DELAYS_MS[1]);
    expect(await engine.sweepOnce()).to.equal(0); // not due yet
    clock.advance(RETRY_DELAYS_MS[1]);
    await engine.sweepOnce();
    [delivery] = await deliveriesOf(dataSource, webhook.id);
    expect(delivery?.nextAttemptAt?.getTime()).to.equal(clock.now().getTime() + RETRY_DELAYS_MS[2]);
    clock.advance(RETRY_DELAYS_MS[2]);
    await engine.sweepOnce();

    [delivery] = await deliveriesOf(dataSource, webhook.id);
    expect(delivery?.status).to.equal(DeliveryStatus.DELIVERED);
    const attempts = await attemptsOf(dataSource, delivery?.id ?? '');
    expect(attempts.map((a) => [a.attempt, a.statusCode, a.responseExcerpt, a.error])).to.deep.equal([
      [1, 500, 'boom', null],
      [2, 0, '', 'timeout after 300 ms'],
      [3, 200, 'ok', null],
    ]);
    expect(receiver.received).to.have.length(3);
    for (const received of receiver.received) verified(secret, received);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).to.equal(1);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-timestamp'])).size).to.equal(3);
    expect((await webhookOf(dataSource, webhook.id)).failingSince).to.equal(null);
  });

  it('follows the whole schedule, then FAILED', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    await fanoutOf(dataSource, clock).record([messageCreated()]);
    const engine = engineOf(dataSource, clock);
    receiver.answer(...RETRY_DELAYS_MS.map(() => ({ status: 503 })));
    const delays: number[] = [];
    for (let attempt = 1; attempt <= RETRY_DELAYS_MS.length; attempt++) {
      const before = clock.now().getTime();
      await engine.sweepOnce();
      const [delivery] = await deliveriesOf(dataSource, webhook.id);
      if (!delivery?.nextAttemptAt) break;
      delays.push(delivery.nextAttemptAt.getTime() - before);
      clock.set(delivery.nextAttemptAt);
    }
    expect(delays).to.deep.equal(RETRY_DELAYS_MS.slice(1));
    const [delivery] = await deliveriesOf(dataSource, webhook.id);
    expect(delivery?.status).to.equal(DeliveryStatus.FAILED);
    expect(delivery?.attemptCount).to.equal(10);
    expect(receiver.received).to.have.length(10);
  });

  it('410 disables the webhook at once and holds its pending deliveries', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    await fanoutOf(dataSource, clock).record([messageCreated()]);
    receiver.answer({ status: 410 });
    await engineOf(dataSource, clock, { concurrency: 1 }).sweepOnce();
    await fanoutOf(dataSource, clock).record([messageCreated()]); // disabled: nothing more
    const found = await webhookOf(dataSource, webhook.id);
    expect([found.status, found.disabledReason]).to.deep.equal([WebhookStatus.DISABLED, DisabledReason.ENDPOINT_GONE]);
    const deliveries = await deliveriesOf(dataSource, webhook.id);
    expect(deliveries.map((d) => [d.status, d.nextAttemptAt])).to.deep.equal([[DeliveryStatus.HELD, null]]);
    expect(receiver.received).to.have.length(1);
  });

  it('webhook-delivery: abort-message stops the retries', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    await fanoutOf(dataSource, clock).record([messageCreated()]);
    receiver.answer({ status: 400, headers: { 'webhook-delivery': 'abort-message' } });
    await engineOf(dataSource, clock).sweepOnce();
    const [delivery] = await deliveriesOf(dataSource, webhook.id);
    expect([delivery?.status, delivery?.nextAttemptAt]).to.deep.equal([DeliveryStatus.FAILED, null]);
  });

  it('429 and 502 honour Retry-After when later than the schedule; other statuses do not', async () => {
    // On a whole second: an HTTP date has no milliseconds.
    const clock = new TestClock(Math.floor(Date.now() / 1000) * 1000);
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    const fanout = fanoutOf(dataSource, clock);
    const engine = engineOf(dataSource, clock, { concurrency: 1 });
    const nextAfter = async (status: number, retryAfter: string) => {
      const event = messageCreated();
      await fanout.record([event]);
      receiver.answer({ status, headers: { 'retry-after': retryAfter } });
      await engine.sweepOnce();
      const delivery = (await deliveriesOf(dataSource, webhook.id)).find((d) => d.eventId === event.eventId);
      return (delivery?.nextAttemptAt?.getTime() ?? 0) - clock.now().getTime();
    };
    expect(await nextAfter(429, '120')).to.equal(120_000);
    expect(await nextAfter(502, new Date(clock.now().getTime() + 600_000).toUTCString())).to.equal(600_000);
    expect(await nextAfter(504, '999999999')).to.equal(24 * 3_600_000);
    expect(await nextAfter(500, '120')).to.equal(RETRY_DELAYS_MS[1]);
    expect(await nextAfter(429, '1')).to.equal(RETRY_DELAYS_MS[1]);
  });

  it('disables a webhook failing for 5 days (FAILING); a success before resets the clock', async () => {
    const clock = new TestClock();
    const start = clock.now().getTime();
    const day = 24 * 3_600_000;
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    const fanout = fanoutOf(dataSource, clock);
    const engine = engineOf(dataSource, clock);
    const failOne = async () => {
      receiver.fallback = { status: 500 };
      await fanout.record([messageCreated()]);
      await engine.sweepOnce();
    };
    await failOne();
    expect((await webhookOf(dataSource, webhook.id)).failingSince?.getTime()).to.equal(start);
    clock.advance(2 * day);
    receiver.fallback = { status: 200 };
    await fanout.record([messageCreated()]);
    await engine.sweepOnce(); // successes: the clock starts again
    expect((await webhookOf(dataSource, webhook.id)).failingSince).to.equal(null);
    clock.advance(day);
    const restarted = clock.now().getTime();
    await failOne();
    clock.set(new Date(restarted + 5 * day - 60_000));
    await failOne();
    expect((await webhookOf(dataSource, webhook.id)).status).to.equal(WebhookStatus.ENABLED);
    clock.set(new Date(restarted + 5 * day));
    await failOne();
    const found = await webhookOf(dataSource, webhook.id);
    expect([found.status, found.disabledReason]).to.deep.equal([WebhookStatus.DISABLED, DisabledReason.FAILING]);
    const statuses = (await deliveriesOf(dataSource, webhook.id)).map((d) => d.status);
    expect(statuses.filter((s) => s === DeliveryStatus.PENDING)).to.deep.equal([]);
    expect(statuses.filter((s) => s === DeliveryStatus.HELD)).to.have.length(3);
  });

  it('signs with the old and the new secret during the rotation grace, then with the new only', async () => {
    const clock = new TestClock();
    const old = newSecret();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret: old });
    const rotated = webhookSecrets.rotate(webhook, clock.now());
    await dataSource.manager.update(PartnerWebhookRow, { id: webhook.id }, rotated.columns);
    const fanout = fanoutOf(dataSource, clock);
    const engine = engineOf(dataSource, clock);
    clock.advance(ROTATION_GRACE_MS - 1);
    await fanout.record([messageCreated()]);
    await engine.sweepOnce();
    expect(String(receiver.received[0]?.headers['webhook-signature']).split(' ')).to.have.length(2);
    verified(rotated.secret, receiver.received[0]);
    verified(old, receiver.received[0]);

    clock.advance(1);
    await fanout.record([messageCreated()]);
    await engine.sweepOnce();
    verified(rotated.secret, receiver.received[1]);
    expect(() => verified(old, receiver.received[1])).to.throw('No matching signature found');
  });

  it('replay sends one new attempt now under the same webhook-id and answers the delivery', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    await fanoutOf(dataSource, clock).record([messageCreated()]);
    const engine = engineOf(dataSource, clock);
    receiver.answer({ status: 400, headers: { 'webhook-delivery': 'abort-message' } });
    await engine.sweepOnce();
    const [failed] = await deliveriesOf(dataSource, webhook.id);
    expect(failed?.status).to.equal(DeliveryStatus.FAILED);

    const replayed = await engine.replay(PROVIDER, failed?.id ?? '');
    expect([replayed.status, replayed.attemptCount]).to.deep.equal([DeliveryStatus.DELIVERED, 2]);
    expect(receiver.received.map((r) => r.headers['webhook-id'])).to.deep.equal([failed?.id, failed?.id]);
    verified(secret, receiver.received[1]);
    const error = await engine.replay('0'.repeat(24), failed?.id ?? '').catch((e: unknown) => e);
    expect(error).to.have.property('message', 'delivery not found');
  });

  it('refuses at send time a registered name that now resolves to loopback (SSRF), sending nothing', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), {
      url: `https://localhost:${receiver.port}/hook`,
      secret,
    });
    await fanoutOf(dataSource, clock).record([messageCreated()]);
    await engineOf(dataSource, clock, { policy: { allowInsecure: false } }).sweepOnce();
    const [delivery] = await deliveriesOf(dataSource, webhook.id);
    const [attempt] = await attemptsOf(dataSource, delivery?.id ?? '');
    expect(attempt?.statusCode).to.equal(0);
    expect(attempt?.error).to.match(/non-public address \((127\.0\.0\.1|::1)\)/);
    expect(delivery?.status).to.equal(DeliveryStatus.PENDING);
    expect(receiver.received).to.have.length(0);
  });

  it('does not follow a redirect: a 3xx is a failure', async () => {
    const clock = new TestClock();
    const webhook = await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    await fanoutOf(dataSource, clock).record([messageCreated()]);
    receiver.answer({ status: 307, headers: { location: `${receiver.url}/elsewhere` } });
    await engineOf(dataSource, clock).sweepOnce();
    const [delivery] = await deliveriesOf(dataSource, webhook.id);
    expect([delivery?.status, receiver.received.length]).to.deep.equal([DeliveryStatus.PENDING, 1]);
  });

  it('wakes when deliveries are created: sent without a poll', async () => {
    const clock = new TestClock();
    await addWebhook(dataSource, clock.now(), { url: receiver.url, secret });
    const engine = engineOf(dataSource, clock, { pollMs: 3_600_000 });
    engine.start();
    try {
      await fanoutOf(dataSource, clock, () => void engine.wake()).record([messageCreated()]);
      await eventually(async () => receiver.received.length === 1, 10_000, 'the delivery');
    } finally {
      await engine.stop();
    }
  });
});
