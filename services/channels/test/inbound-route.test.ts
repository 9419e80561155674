import { expect } from 'chai';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import { dropTestDatabase, eventually, metricsRegistry, newId, testEnv, type Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { ChannelsApp, channelsConfig } from '../src';
import { INBOUND_TOPIC } from '../src/domain/events';
import type { PlatformChannels } from '../src/domain/platform-channels';
import { ChannelRow } from '../src/entities';
import { MAX_INBOUND_BODY_BYTES } from '../src/http/inbound-webhooks';
import { inboundWebhookUrl } from '../src/http/urls';
import { TEST_SIGNATURE, TestAdapter, insertPlatformChannel, sign } from './support/test-adapter';

/** `/channels/in/:channelId` (decision 0135): verification first, the outbox, the answers. */
describe('channels: the inbound webhook route', () => {
  let app: ChannelsApp;
  let channels: PlatformChannels;
  let watcher: Subscription;
  const received: Envelope[] = [];
  const viberLike = new TestAdapter(ChannelType.CHAT_APP_C);
  const graphLike = new TestAdapter(ChannelType.CHAT_APP_A, { handshakes: true });
  const url = (channelId: string) => `http://127.0.0.1:${app.httpPort}/channels/in/${channelId}`;
  const post = (channelId: string, body: string, headers: Record<string, string> = {}) =>
    fetch(url(channelId), { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  const signed = (channelId: string, secret: string, body: string) =>
    post(channelId, body, { [TEST_SIGNATURE]: sign(body, secret) });
  const bodiesOf = (channelId: string) =>
    received.filter((e) => e.platformWebhook?.channelId === channelId).map((e) => e.platformWebhook!.body.toString());

  before(async () => {
    app = new ChannelsApp(channelsConfig(testEnv('channels')), {
      adapters: new Map([
        [ChannelType.CHAT_APP_C, viberLike],
        [ChannelType.CHAT_APP_A, graphLike],
      ]),
    });
    await app.start();
    channels = app.platformChannels!;
    const prefix = app.config.KAFKA_TOPIC_PREFIX;
    watcher = await app.bus.subscribe({
      groupId: `${prefix}test.inbound-route.${newId()}`,
      topics: [prefix + INBOUND_TOPIC],
      fromBeginning: true,
      handle: async (record) => {
        received.push(Envelope.decode(record.value));
      },
    });
  });

  after(async () => {
    await watcher.stop();
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  it('accepts a verified body with 200 once its event is in the outbox, byte for byte, keyed by the channel', async () => {
    const { channelId, orgId, secret } = await insertPlatformChannel(app.dataSource, channels);
    const body = '{"events": [],  "note": "spacing kept \u00e9"}';
    const response = await signed(channelId, secret, body);
    expect(response.status).to.equal(200);
    await eventually(async () => bodiesOf(channelId).length > 0);
    expect(bodiesOf(channelId)).to.deep.equal([body]);
    const [event] = received.filter((e) => e.platformWebhook?.channelId === channelId);
    expect(event).to.deep.include({ type: 'platform_webhook.received', orgId });
    expect(event?.platformWebhook?.channelType).to.equal(ChannelType.CHAT_APP_C);
  });

  it("answers an accepted body with the adapter's webhook reply (decision 0131), else an empty object", async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, channels);
    const reply = { method: 'answerCallbackQuery', callback_query_id: '42' };
    const answered = await signed(channelId, secret, JSON.stringify({ events: [], reply }));
    expect(answered.status).to.equal(200);
    expect(answered.headers.get('content-type')).to.match(/^application\/json/);
    expect(await answered.json()).to.deep.equal(reply);
    expect(await (await signed(channelId, secret, '{"events":[]}')).json()).to.deep.equal({});
  });

  it('refuses a bad or missing signature with 401 and stores nothing', async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, channels);
    expect(
      (await post(channelId, '{"events":[1]}', { [TEST_SIGNATURE]: sign('{"events":[1]}', 'wrong') })).status,
    ).to.equal(401);
    expect((await post(channelId, '{"events":[2]}')).status).to.equal(401);
    // Another channel's secret does not open this one either.
    const other = await insertPlatformChannel(app.dataSource, channels);
    expect((await signed(channelId, other.secret, '{"events":[3]}')).status).to.equal(401);
    // A later good body arrives alone: the refused ones were never written (one partition per channel keeps order).
    expect((await signed(channelId, secret, '{"events":[]}')).status).to.equal(200);
    await eventually(async () => bodiesOf(channelId).length > 0);
    expect(bodiesOf(channelId)).to.deep.equal(['{"events":[]}']);
  });

  it('answers 404 alike for an unknown id, a malformed id, a web channel id and a disconnected channel', async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, channels);
    await app.dataSource.getRepository(ChannelRow).update({ id: channelId }, { deletedAt: new Date() });
    const answers = await Promise.all(
      [newId(), 'not-an-id', channelId].map(async (id) => {
        const response = await signed(id, secret, '{"events":[]}');
        return [response.status, await response.text()];
      }),
    );
    expect(answers).to.deep.equal(Array(3).fill([404, '{"message":"No such channel."}']));
    expect(bodiesOf(channelId)).to.deep.equal([]);
  });

  it('keeps accepting for a paused channel (decision 0120: inbound kept)', async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, channels, {
      status: ChannelStatus.PAUSED,
    });
    expect((await signed(channelId, secret, '{"events":[]}')).status).to.equal(200);
    await eventually(async () => bodiesOf(channelId).length === 1);
  });

  it('refuses a body over the bound with 413 before reading it', async () => {
    const { channelId, secret } = await insertPlatformChannel(app.dataSource, channels);
    const body = `{"events":[],"pad":"${'x'.repeat(MAX_INBOUND_BODY_BYTES)}"}`;
    const response = await signed(channelId, secret, body);
    expect(response.status).to.equal(413);
    expect(response.headers.get('connection')).to.equal('close');
  });

  it("answers the GET handshake through the kind's adapter, 403 on a wrong token, 405 for a kind without one", async () => {
    const graph = await insertPlatformChannel(app.dataSource, channels, { type: ChannelType.CHAT_APP_A });
    const shake = (channelId: string, token: string) =>
      fetch(`${url(channelId)}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`);
    const ok = await shake(graph.channelId, graph.secret);
    expect([ok.status, await ok.text()]).to.deep.equal([200, '1158201444']);
    expect((await shake(graph.channelId, 'guess')).status).to.equal(403);
    const viber = await insertPlatformChannel(app.dataSource, channels);
    expect((await shake(viber.channelId, viber.secret)).status).to.equal(405);
    expect((await shake(newId(), 'x')).status).to.equal(404);
    expect((await fetch(url(viber.channelId), { method: 'PUT', body: '{}' })).status).to.equal(405);
  });

  it('counts requests by kind and outcome', async () => {
    const { channelId } = await insertPlatformChannel(app.dataSource, channels);
    await post(channelId, '{}');
    const metrics = await metricsRegistry.metrics();
    expect(metrics).to.match(/svc_channels_inbound_requests_total\{kind="CHAT_APP_C",outcome="unauthorized"\} [1-9]/);
    expect(metrics).to.match(/svc_channels_inbound_requests_total\{kind="CHAT_APP_C",outcome="accepted"\} [1-9]/);
  });

  it('builds the URL platforms are given from CHANNELS_PUBLIC_URL', () => {
    const id = newId();
    expect(inboundWebhookUrl({ CHANNELS_PUBLIC_URL: 'https://chat.example.com/', HTTP_PORT: 8080 }, id)).to.equal(
      `https://chat.example.com/channels/in/${id}`,
    );
    expect(inboundWebhookUrl({ CHANNELS_PUBLIC_URL: '', HTTP_PORT: 8080 }, id)).to.equal(
      `http://localhost:8080/channels/in/${id}`,
    );
  });
});
