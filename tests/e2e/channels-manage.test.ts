import { expect } from 'chai';
import { ALL_SCOPES, ApiScope, eventually, newId } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { ChannelStatus } from '@svc/proto/channels/v1';
import { ChannelRow, PlatformChannelRow } from '@svc/channels/dist/src/entities';
import { FakeChatAppA } from '../fakes/chat-app-a';
import { telegramError } from '../fakes/chat-app-b';
import type { TestOrg } from '../support/stack-harness';
import {
  CONNECT_A,
  CONNECT_B,
  DISCONNECT,
  LIST,
  PAUSE,
  PlatformStack,
  RESUME,
  UPDATE,
  type ChannelView,
} from './channels-platform-fixtures';
import { dataOf, expectError } from './inbox-fixtures';

const CREATE_WEB = 'mutation { createWebIntegration(input: { name: "Site" }) { integration { id } } }';

describe('Channels: listing and managing channels through GraphQL (fake platforms)', function () {
  const platforms = new PlatformStack();
  let org: TestOrg;
  let key: string;
  const gql = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    platforms.harness.graphql<T>(query, variables, as);
  const list = async (as = key) => dataOf(await gql<{ channels: ChannelView[] }>(LIST, {}, as)).channels;
  const connectBot = async (as = key) => {
    const bot = platforms.b.addBot();
    const channel = dataOf(
      await gql<{ connectChatAppBChannel: ChannelView }>(CONNECT_B, { i: { botToken: bot.token } }, as),
    ).connectChatAppBChannel;
    return { bot, channel };
  };
  const pause = (id: string, as = key) => gql<{ pauseChannel: ChannelView }>(PAUSE, { id }, as);
  const resume = (id: string, as = key) => gql<{ resumeChannel: ChannelView }>(RESUME, { id }, as);
  const update = (id: string, i: Record<string, unknown>, as = key) =>
    gql<{ updateChannel: ChannelView }>(UPDATE, { id, i }, as);
  const disconnect = (id: string, as = key) =>
    gql<{ disconnectChannel: { disconnected: boolean; id: string } }>(DISCONNECT, { id }, as);

  before(async () => {
    await platforms.start();
    org = await platforms.harness.newOrg('Manage');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
  });
  after(() => platforms.stop());

  it('lists every channel of the org, the web widget included, oldest first, without secrets', async () => {
    const other = await platforms.harness.newOrg('List');
    const otherKey = (await other.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    expect(await list(otherKey)).to.deep.equal([]);
    const web = dataOf(await gql<{ createWebIntegration: { integration: { id: string } } }>(CREATE_WEB, {}, otherKey))
      .createWebIntegration.integration.id;
    const { bot, channel: botChannel } = await connectBot(otherKey);
    const account = platforms.a.account();
    const number = dataOf(
      await gql<{ connectChatAppAChannel: ChannelView }>(CONNECT_A, { i: FakeChatAppA.credentials(account) }, otherKey),
    ).connectChatAppAChannel;
    const listed = await list(otherKey);
    expect(listed.map((c) => [c.id, c.type])).to.deep.equal([
      [web, 'WEB'],
      [botChannel.id, 'CHAT_APP_B'],
      [number.id, 'CHAT_APP_A'],
    ]);
    expect(listed[0]).to.include({ name: 'Site', status: 'ACTIVE', accountDisplayName: '', aiAutoReply: false });
    expect(listed[1]).to.deep.equal(botChannel);
    expect(listed[2]).to.deep.equal(number);
    const text = JSON.stringify(listed);
    for (const secret of [bot.token, bot.webhook?.secretToken ?? '-', account.accessToken, account.appSecret])
      expect(text).not.to.contain(secret);
    // Another org sees none of them.
    expect((await list()).map((c) => c.id)).not.to.include.members([web, botChannel.id, number.id]);
  });

  it('pauses and resumes: PAUSED ⇄ ACTIVE, repeating either is a no-op; the webhook stays registered', async () => {
    const { bot, channel } = await connectBot();
    const paused = dataOf(await pause(channel.id)).pauseChannel;
    expect(paused.status).to.equal('PAUSED');
    expect(Date.parse(paused.updatedAt)).to.be.at.least(Date.parse(channel.updatedAt));
    expect(dataOf(await pause(channel.id)).pauseChannel.status).to.equal('PAUSED');
    expect((await list()).find((c) => c.id === channel.id)?.status).to.equal('PAUSED');
    // Inbound is kept while paused (decision 0120): the platform's delivery is accepted.
    const delivered = await platforms.b.deliverUpdate(bot, platforms.b.textUpdate(bot, platforms.b.user(), 'hi'));
    expect(delivered.status).to.equal(200);
    expect(platforms.b.calls(bot, 'deleteWebhook')).to.deep.equal([]);
    expect(dataOf(await resume(channel.id)).resumeChannel.status).to.equal('ACTIVE');
    expect(dataOf(await resume(channel.id)).resumeChannel.status).to.equal('ACTIVE');
  });

  it('updates the name and AI auto-reply, keeping what the input does not name; the web widget: its name only', async () => {
    const { channel } = await connectBot();
    const renamed = dataOf(await update(channel.id, { name: '  Night desk ' })).updateChannel;
    expect(renamed).to.include({ name: 'Night desk', aiAutoReply: false });
    const auto = dataOf(await update(channel.id, { aiAutoReply: true })).updateChannel;
    expect(auto).to.include({ name: 'Night desk', aiAutoReply: true });
    expect((await list()).find((c) => c.id === channel.id)).to.deep.equal(auto);
    const web = dataOf(await gql<{ createWebIntegration: { integration: { id: string } } }>(CREATE_WEB))
      .createWebIntegration.integration.id;
    expect(dataOf(await update(web, { name: 'Website 2' })).updateChannel.name).to.equal('Website 2');
    const refused = await update(web, { aiAutoReply: true });
    expectError(refused, 200, 'BAD_USER_INPUT');
    expect(refused.body.errors?.[0]?.extensions?.field).to.equal('aiAutoReply');
    expectError(await pause(web), 200, 'FAILED_PRECONDITION');
    expectError(await disconnect(web), 200, 'FAILED_PRECONDITION');
  });

  it('disconnects: the webhook is unregistered, credentials erased, the account free again, the chats kept', async () => {
    const { bot, channel } = await connectBot();
    const chatId = await org.openChat({ name: 'Grace' }, channel.id);
    const secret = bot.webhook?.secretToken ?? '';
    const update_ = platforms.b.textUpdate(bot, platforms.b.user(), 'before');
    expect(dataOf(await disconnect(channel.id)).disconnectChannel).to.deep.equal({
      disconnected: true,
      id: channel.id,
    });
    expect(platforms.b.calls(bot, 'deleteWebhook')).to.have.length(1);
    expect(bot.webhook).to.equal(undefined);
    expect((await list()).map((c) => c.id)).not.to.include(channel.id);
    for (const call of [
      pause(channel.id),
      resume(channel.id),
      update(channel.id, { name: 'x' }),
      disconnect(channel.id),
    ])
      expectError(await call, 200, 'NOT_FOUND');
    // Nothing secret is left at rest; a late delivery with the old secret is refused.
    const [row] = (await platforms.harness.stack.channels.dataSource.query(
      'SELECT credentials_sealed, webhook_secret_sealed, connected_account FROM platform_channels WHERE id = ?',
      [channel.id],
    )) as { credentials_sealed: string; webhook_secret_sealed: string; connected_account: string | null }[];
    expect(row).to.deep.equal({ credentials_sealed: '', webhook_secret_sealed: '', connected_account: null });
    const late = await fetch(platforms.inboundUrl(channel.id), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
      body: JSON.stringify(update_),
    });
    expect(late.status).to.be.oneOf([404, 410]);
    // History: the chat of the channel is still there.
    const chat = await gql<{ chat: { _id: string } }>(
      'query($c: String!) { chat(chatId: $c) { _id } }',
      { c: chatId },
      (await org.mintKey([ApiScope.MESSAGES_READ])).key,
    );
    expect(dataOf(chat).chat._id).to.equal(chatId);
    // The bot connects again as a new channel.
    const again = dataOf(
      await gql<{ connectChatAppBChannel: ChannelView }>(CONNECT_B, { i: { botToken: bot.token } }),
    ).connectChatAppBChannel;
    expect(again.id).not.to.equal(channel.id);
  });

  it('disconnect: a platform that is down changes nothing (UNAVAILABLE); one that refuses the token disconnects anyway', async () => {
    const { bot, channel } = await connectBot();
    platforms.b.failNext((r) => r.path.endsWith('/deleteWebhook'), { status: 502, body: { ok: false } });
    expectError(await disconnect(channel.id), 200, 'UNAVAILABLE');
    expect((await list()).map((c) => c.id)).to.include(channel.id);
    expect(bot.webhook).not.to.equal(undefined);
    platforms.b.failNext((r) => r.path.endsWith('/deleteWebhook'), telegramError(401, 'Unauthorized'));
    expect(dataOf(await disconnect(channel.id)).disconnectChannel.disconnected).to.equal(true);
    expect((await list()).map((c) => c.id)).not.to.include(channel.id);
  });

  it('a channel the platform stopped accepting (NEEDS_REAUTHORIZATION) is fixed by connecting its account again', async () => {
    const { bot, channel } = await connectBot();
    const secret = bot.webhook?.secretToken;
    // What the sender records when the platform refuses the token on a send (decision 0121).
    const dataSource = platforms.harness.stack.channels.dataSource;
    await dataSource
      .getRepository(ChannelRow)
      .update({ id: channel.id }, { status: ChannelStatus.NEEDS_REAUTHORIZATION });
    await dataSource
      .getRepository(PlatformChannelRow)
      .update({ id: channel.id }, { authorizationError: 'Unauthorized (401)' });
    expect((await list()).find((c) => c.id === channel.id)).to.include({
      status: 'NEEDS_REAUTHORIZATION',
      authorizationError: 'Unauthorized (401)',
    });
    expectError(await pause(channel.id), 200, 'FAILED_PRECONDITION');
    expectError(await resume(channel.id), 200, 'FAILED_PRECONDITION');
    const again = dataOf(
      await gql<{ connectChatAppBChannel: ChannelView }>(CONNECT_B, { i: { botToken: bot.token } }),
    ).connectChatAppBChannel;
    expect(again).to.include({ id: channel.id, status: 'ACTIVE', authorizationError: '' });
    // The webhook is set again with the channel's own secret: deliveries in flight still verify.
    expect(bot.webhook).to.deep.include({ url: platforms.inboundUrl(channel.id), secretToken: secret });
    expect(platforms.b.calls(bot, 'setWebhook')).to.have.length(2);
    // Another org cannot take it over that way.
    const other = await platforms.harness.newOrg('Takeover');
    const otherKey = (await other.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    await dataSource
      .getRepository(ChannelRow)
      .update({ id: channel.id }, { status: ChannelStatus.NEEDS_REAUTHORIZATION });
    expectError(await gql(CONNECT_B, { i: { botToken: bot.token } }, otherKey), 200, 'CONFLICT');
  });

  it('publishes channel.created, channel.updated and channel.deleted, with ids only', async () => {
    const seen: Envelope[] = [];
    const prefix = platforms.harness.stack.config.KAFKA_TOPIC_PREFIX;
    const subscription = await platforms.harness.stack.bus.subscribe({
      groupId: `e2e-channels-${newId()}`,
      topics: [`${prefix}svc.channels.channels.v1`],
      fromBeginning: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.orgId === org.id) seen.push(envelope);
      },
    });
    try {
      const { bot, channel } = await connectBot();
      dataOf(await pause(channel.id));
      dataOf(await disconnect(channel.id));
      const types = await eventually(
        async () => {
          const mine = seen.filter((e) => e.channel?.channelId === channel.id).map((e) => e.type);
          return mine.length >= 3 ? mine : undefined;
        },
        30_000,
        'channel events',
      );
      expect(types).to.deep.equal(['channel.created', 'channel.updated', 'channel.deleted']);
      const event = seen.find((e) => e.channel?.channelId === channel.id);
      expect(event?.channel?.channelType).to.equal('CHAT_APP_B');
      expect(JSON.stringify(Envelope.toJSON(event!))).not.to.contain(bot.token);
    } finally {
      await subscription.stop();
    }
  });

  it("answers NOT_FOUND for another org's channel on every operation, exactly as for an unknown id", async () => {
    const { channel } = await connectBot();
    const stranger = await platforms.harness.newOrg('Stranger');
    const strangerKey = (await stranger.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    const unknown = newId();
    for (const id of [channel.id, unknown]) {
      for (const call of [
        pause(id, strangerKey),
        resume(id, strangerKey),
        update(id, { name: 'Mine' }, strangerKey),
        disconnect(id, strangerKey),
      ]) {
        const response = await call;
        expectError(response, 200, 'NOT_FOUND');
        expect(response.body.errors?.[0]?.message).to.equal('channel not found');
      }
    }
    expect((await list()).find((c) => c.id === channel.id)).to.deep.include({ status: 'ACTIVE', name: channel.name });
  });

  it('bad input: a malformed id, an empty or too long name, each naming the field', async () => {
    const { channel } = await connectBot();
    for (const call of [pause('nope'), resume('nope'), update('nope', { name: 'x' }), disconnect('nope')]) {
      const response = await call;
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('id');
    }
    for (const name of ['', 'x'.repeat(101)]) {
      const response = await update(channel.id, { name });
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('name');
    }
  });

  it('refuses a key without CHANNELS_MANAGE on every operation, naming the scope', async () => {
    const { channel } = await connectBot();
    const without = (
      await org.mintKey(ALL_SCOPES.filter((s) => s !== ApiScope.CHANNELS_MANAGE && s !== ApiScope.PARTNER_ADMIN))
    ).key;
    for (const [query, variables] of [
      [LIST, {}],
      [PAUSE, { id: channel.id }],
      [RESUME, { id: channel.id }],
      [UPDATE, { id: channel.id, i: { name: 'x' } }],
      [DISCONNECT, { id: channel.id }],
    ] as const) {
      const response = await gql(query, variables, without);
      expectError(response, 403, 'FORBIDDEN');
      expect(response.body.errors?.[0]?.extensions?.scope, query).to.equal(ApiScope.CHANNELS_MANAGE);
    }
    expect((await list()).find((c) => c.id === channel.id)).to.deep.include({ status: 'ACTIVE', name: channel.name });
  });
});
