import { expect } from 'chai';
import { ChannelType } from '@svc/proto/channels/v1';
import {
  DLQ_HEADERS,
  dlqTopic,
  dropTestDatabase,
  eventually,
  newId,
  testEnv,
  type DeliveredRecord,
  type Subscription,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { ChannelsApp, channelsConfig } from '../src';
import { INBOUND_TOPIC } from '../src/domain/events';
import type { InboundSinks } from '../src/domain/inbound/consumer';
import type { ConnectedChannel, InboundEvent } from '../src/platforms/adapter';
import { TEST_SIGNATURE, TestAdapter, insertPlatformChannel, sign } from './support/test-adapter';

/** What the sinks were handed, in order: `<kind>:<channel id>:<what it names>`. */
const applied: string[] = [];

class RecordingChannelsApp extends ChannelsApp {
  protected override inboundSinks(): InboundSinks {
    const note = (kind: string, channel: ConnectedChannel, what: string) => {
      applied.push(`${kind}:${channel.channelId}:${what}`);
      return Promise.resolve();
    };
    return {
      deliveryStatus: {
        applyStatus: (channel, status) => note('status', channel, `${status.platformMessageId}=${status.status}`),
        applyWatermark: (channel, mark) => note('watermark', channel, `${mark.platformUserId}=${mark.status}`),
      },
      templateStatus: {
        applyTemplateStatus: (channel, status) => note('template', channel, `${status.name}=${status.status}`),
      },
    };
  }
}

/** The inbound consumer (decision 0136): statuses to the sinks, idempotent on the envelope, bad bodies dead-lettered. */
describe('channels: the inbound consumer', () => {
  let app: RecordingChannelsApp;
  let watcher: Subscription;
  const adapter = new TestAdapter(ChannelType.CHAT_APP_C);
  const accepted: DeliveredRecord[] = [];
  const deadLetters: DeliveredRecord[] = [];

  before(async () => {
    app = new RecordingChannelsApp(channelsConfig(testEnv('channels')), {
      adapters: new Map([[ChannelType.CHAT_APP_C, adapter]]),
    });
    await app.start();
    const prefix = app.config.KAFKA_TOPIC_PREFIX;
    watcher = await app.bus.subscribe({
      groupId: `${prefix}test.inbound-consumer.${newId()}`,
      topics: [prefix + INBOUND_TOPIC, dlqTopic(prefix + INBOUND_TOPIC)],
      fromBeginning: true,
      handle: async (record) => {
        (record.topic.endsWith('.dlq') ? deadLetters : accepted).push(record);
      },
    });
  });

  after(async () => {
    await watcher.stop();
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const post = async (channelId: string, secret: string, events: InboundEvent[] | string) => {
    const body = typeof events === 'string' ? events : JSON.stringify({ events });
    const response = await fetch(`http://127.0.0.1:${app.httpPort}/channels/in/${channelId}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', [TEST_SIGNATURE]: sign(body, secret) },
    });
    expect(response.status).to.equal(200);
  };
  const appliedFor = (channelId: string) => applied.filter((entry) => entry.includes(`:${channelId}:`));

  it('hands statuses and watermarks to the delivery sink and template statuses to the templates, in order', async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, app.platformChannels!);
    const at = new Date();
    await post(channelId, secret, [
      { kind: 'status', platformMessageId: 'm1', status: 'DELIVERED', at },
      { kind: 'watermark', platformUserId: 'u1', status: 'READ', upTo: at },
      { kind: 'template_status', templateId: '77', name: 'order_update', language: 'en', status: 'APPROVED' },
      { kind: 'status', platformMessageId: 'm1', status: 'READ', at },
    ]);
    await eventually(async () => appliedFor(channelId).length === 4);
    expect(appliedFor(channelId)).to.deep.equal([
      `status:${channelId}:m1=DELIVERED`,
      `watermark:${channelId}:u1=READ`,
      `template:${channelId}:order_update=APPROVED`,
      `status:${channelId}:m1=READ`,
    ]);
  });

  it('applies a redelivered envelope once', async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, app.platformChannels!);
    await post(channelId, secret, [{ kind: 'status', platformMessageId: 'once', status: 'SENT', at: new Date() }]);
    const record = await eventually(async () =>
      accepted.find((r) => Envelope.decode(r.value).platformWebhook?.channelId === channelId),
    );
    await eventually(async () => appliedFor(channelId).length === 1);
    // The bus delivers the same record again (a rebalance, a crash before the commit), then a new body follows.
    await app.bus.publish([{ topic: record.topic, key: record.key, value: record.value, headers: record.headers }]);
    await post(channelId, secret, [{ kind: 'status', platformMessageId: 'next', status: 'SENT', at: new Date() }]);
    await eventually(async () => appliedFor(channelId).length >= 2);
    expect(appliedFor(channelId)).to.deep.equal([`status:${channelId}:once=SENT`, `status:${channelId}:next=SENT`]);
  });

  it('dead-letters a verified body the adapter cannot parse, after its retries, and moves on', async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, app.platformChannels!);
    const parsedBefore = adapter.parsed;
    await post(channelId, secret, '{"not": "a test platform body"}');
    await post(channelId, secret, [{ kind: 'status', platformMessageId: 'after', status: 'SENT', at: new Date() }]);
    const letter = await eventually(
      async () => deadLetters.find((r) => Envelope.decode(r.value).platformWebhook?.channelId === channelId),
      20_000,
    );
    expect(letter.headers?.[DLQ_HEADERS.error]).to.match(/not a test platform body/);
    expect(Number(letter.headers?.[DLQ_HEADERS.attempts])).to.equal(10);
    expect(adapter.parsed - parsedBefore).to.be.at.least(10);
    await eventually(async () => appliedFor(channelId).length === 1);
    expect(appliedFor(channelId)).to.deep.equal([`status:${channelId}:after=SENT`]);
  });
});
