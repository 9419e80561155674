import { expect } from 'chai';
import { ApiScope, eventually, testRunId } from '@svc/kit';
import type { WidgetApiApp } from '@svc/widget-api';
import { SAMPLES } from '../support/media-samples';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetReplica } from '../support/widget-replica';
import { SITE, SseReader, WidgetFixtures, siteJwt, web, type SessionBody } from '../support/widget';

interface AgentMessage {
  _id: string;
  text: string;
  direction: string;
  deliveryStatus: string;
}

const AGENT_SCOPES = [
  ApiScope.MESSAGES_READ,
  ApiScope.MESSAGES_SEND,
  ApiScope.CONVERSATIONS_MANAGE,
  ApiScope.NOTES_WRITE,
  ApiScope.PII_READ,
];

describe('widget-api visitor chat and SSE (whole stack over HTTP)', function () {
  const harness = new StackHarness({ WIDGET_SSE_HEARTBEAT_MS: '200' });
  let org: TestOrg;
  let fixtures: WidgetFixtures;
  let agentKey: string;
  let url: string;
  const streams: SseReader[] = [];

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    url = harness.url;
    org = await harness.newOrg('Widget chat');
    fixtures = new WidgetFixtures(harness, org);
    agentKey = (await org.mintKey(AGENT_SCOPES)).key;
  });

  afterEach(async () => {
    for (const stream of streams.splice(0)) await stream.close();
  });

  after(async () => harness.stop());

  async function gql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const response = await harness.graphql<T>(query, variables, agentKey);
    if (!response.body.data) throw new Error(JSON.stringify(response.body));
    return response.body.data;
  }

  const agentMessages = async (chatId: string) =>
    (
      await gql<{ getMessages: { data: AgentMessage[] } }>(
        'query($c: String!) { getMessages(chatId: $c, input: { limit: 100 }) { data { _id text direction deliveryStatus } } }',
        { c: chatId },
      )
    ).getMessages.data;

  const agentSends = async (chatId: string, text: string, internal = false) =>
    (
      await gql<{ sendMessage: { _id: string } }>(
        'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
        { c: chatId, i: { text, internal } },
      )
    ).sendMessage._id;

  async function visitor(publicKey: string): Promise<SessionBody> {
    const started = await web<SessionBody>(url, '/visitor/start-anonymous', { body: { publicKey }, origin: SITE });
    if (started.status !== 200) throw new Error(JSON.stringify(started.body));
    return started.body;
  }

  async function stream(session: SessionBody, lastEventId?: number, baseUrl = url): Promise<SseReader> {
    const opened = await SseReader.open(baseUrl, session.chat._id, session.sessionToken, {
      lastEventId: lastEventId ?? session.chat.lastEventSeq,
      origin: SITE,
    });
    streams.push(opened);
    return opened;
  }

  const post = (session: SessionBody, text: string, clientMessageId = `c-${Math.random()}`) =>
    web<{ _id: string }>(url, `/chats/${session.chat._id}/messages`, {
      body: { clientMessageId, text },
      token: session.sessionToken,
      origin: SITE,
    });

  /** The stream's logged ids run from `first` without a gap or a repeat. */
  const expectGapless = (reader: SseReader, first: number) => {
    const ids = reader.logged.map(([id]) => id);
    expect(ids[0]).to.equal(first);
    expect(ids).to.deep.equal(ids.map((_id, index) => first + index));
  };

  const messageEvents = (reader: SseReader) =>
    reader.events
      .filter((e) => e.event.startsWith('message.'))
      .map((e) => ({ id: Number(e.id), type: e.event, message: e.data.message as AgentMessage }));

  it('carries a visitor message to the agent and the reply back over SSE, SENT, then DELIVERED and READ', async () => {
    const { integration } = await fixtures.integration({ branding: { teamName: 'Acme support' } });
    const session = await visitor(integration.publicKey);
    const sse = await stream(session);
    expect(sse.status).to.equal(200);
    expect(sse.headers?.get('content-type')).to.match(/^text\/event-stream/);
    expect(sse.headers?.get('access-control-allow-origin')).to.equal(SITE);

    const sent = await post(session, 'Hello, is anyone there?', 'client-1');
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
    const again = await post(session, 'Hello, is anyone there?', 'client-1');
    expect(again.body._id).to.equal(sent.body._id);

    const found = await gql<{ searchChats: { data: { _id: string }[] } }>(
      'query($f: SearchChatsInput) { searchChats(filter: $f) { data { _id } } }',
      { f: { channelId: integration.id } },
    );
    expect(found.searchChats.data.map((chat) => chat._id)).to.deep.equal([session.chat._id]);
    expect((await agentMessages(session.chat._id)).map((m) => m.text)).to.deep.equal(['Hello, is anyone there?']);

    const replyId = await agentSends(session.chat._id, 'Hi! How can I help?');
    await eventually(async () => messageEvents(sse).some((e) => e.message._id === replyId), 10_000, 'reply on SSE');
    const reply = messageEvents(sse).find((e) => e.message._id === replyId && e.type === 'message.created');
    expect(reply?.message).to.include({ text: 'Hi! How can I help?', direction: 'OUTBOUND' });
    expect((reply?.message as unknown as { author: { displayName: string } }).author.displayName).to.equal(
      'Acme support',
    );
    const status = async () => (await agentMessages(session.chat._id)).find((m) => m._id === replyId)?.deliveryStatus;
    await eventually(async () => (await status()) === 'SENT', 10_000, 'SENT');

    const delivered = await web(url, `/chats/${session.chat._id}/delivered`, {
      body: { messageIds: [replyId] },
      token: session.sessionToken,
    });
    expect(delivered.body).to.deep.equal({ changedMessageIds: [replyId] });
    expect(await status()).to.equal('DELIVERED');
    const read = await web(url, `/chats/${session.chat._id}/read`, {
      body: { messageId: replyId },
      token: session.sessionToken,
    });
    expect(read.status).to.equal(200);
    expect(await status()).to.equal('READ');
    await eventually(
      async () =>
        messageEvents(sse).some((e) => e.type === 'message.status_changed' && e.message.deliveryStatus === 'READ'),
      10_000,
      'READ on SSE',
    );
    // Every logged event has the next id: nothing lost, nothing twice.
    expectGapless(sse, 1);
  });

  it('never shows an internal note to the visitor, in the stream or the history', async () => {
    const { integration } = await fixtures.integration();
    const session = await visitor(integration.publicKey);
    const sse = await stream(session);
    await agentSends(session.chat._id, 'Secret: this customer is a VIP', true);
    const visibleId = await agentSends(session.chat._id, 'Visible reply');
    await eventually(async () => messageEvents(sse).some((e) => e.message._id === visibleId));
    expect(JSON.stringify(sse.events)).not.to.include('VIP');
    const history = await web<{ data: AgentMessage[] }>(url, `/chats/${session.chat._id}/messages`, {
      token: session.sessionToken,
    });
    expect(history.body.data.map((m) => m.text)).to.deep.equal(['Visible reply']);
  });

  it('replays exactly the events sent while disconnected after Last-Event-ID', async () => {
    const { integration } = await fixtures.integration();
    const session = await visitor(integration.publicKey);
    const first = await stream(session);
    const before = await agentSends(session.chat._id, 'before');
    await eventually(async () =>
      messageEvents(first).some((e) => e.message._id === before && e.type === 'message.created'),
    );
    await eventually(async () => messageEvents(first).some((e) => e.type === 'message.status_changed'));
    const lastId = Math.max(...first.logged.map(([id]) => id));
    await first.close();
    const missed = [await agentSends(session.chat._id, 'missed 1'), await agentSends(session.chat._id, 'missed 2')];
    const reconnected = await stream(session, lastId);
    await eventually(async () => missed.every((id) => messageEvents(reconnected).some((e) => e.message._id === id)));
    const created = messageEvents(reconnected)
      .filter((e) => e.type === 'message.created')
      .map((e) => e.message.text);
    expect(created).to.deep.equal(['missed 1', 'missed 2']);
    expectGapless(reconnected, lastId + 1);
  });

  it('streams edits, deletions, and the conversation closing and reopening, each with the next id', async () => {
    const { integration } = await fixtures.integration();
    const session = await visitor(integration.publicKey);
    const sse = await stream(session);
    const messageId = await agentSends(session.chat._id, 'first draft');
    await gql('mutation($m: String!) { updateMessage(messageId: $m, text: "final words") { _id } }', { m: messageId });
    // An event carries the message as it is when read: wait for the edit before the deletion empties it.
    await eventually(async () => sse.events.some((e) => e.event === 'message.updated'), 10_000, 'message.updated');
    await gql('mutation($m: String!) { deleteMessage(messageId: $m) { _id } }', { m: messageId });
    await gql('mutation($c: String!) { closeChat(chatId: $c) { _id } }', { c: session.chat._id });
    await gql('mutation($c: String!) { reopenChat(chatId: $c) { _id } }', { c: session.chat._id });
    await eventually(async () => sse.events.some((e) => e.event === 'chat.reopened'), 10_000, 'chat.reopened');
    const types = sse.logged.map(([, type]) => type);
    for (const type of ['message.created', 'message.updated', 'message.deleted', 'chat.closed', 'chat.reopened'])
      expect(types, type).to.include(type);
    expect(types.indexOf('message.updated')).to.be.lessThan(types.indexOf('message.deleted'));
    expect(types.indexOf('chat.closed')).to.be.lessThan(types.indexOf('chat.reopened'));
    const updated = sse.events.find((e) => e.event === 'message.updated');
    expect((updated?.data.message as AgentMessage).text).to.equal('final words');
    const closed = sse.events.find((e) => e.event === 'chat.closed');
    expect(closed?.data.status).to.equal('CLOSED');
    expectGapless(sse, 1);
  });

  it('relays agent typing without an id', async () => {
    const { integration } = await fixtures.integration();
    const session = await visitor(integration.publicKey);
    const sse = await stream(session);
    await gql('mutation($c: ID!) { setChatTyping(chatId: $c, typing: true) { _id } }', { c: session.chat._id });
    await eventually(async () => sse.events.some((e) => e.event === 'typing'));
    const typing = sse.events.find((e) => e.event === 'typing');
    expect(typing?.id).to.equal(undefined);
    expect(typing?.data.typing).to.equal(true);
    // The visitor's own typing goes to the dashboard, not back to its stream.
    const own = await web(url, `/chats/${session.chat._id}/typing`, {
      body: { typing: true },
      token: session.sessionToken,
    });
    expect(own.status).to.equal(204);
  });

  it('uploads an attachment and sends it', async () => {
    const { integration } = await fixtures.integration();
    const session = await visitor(integration.publicKey);
    const upload = await fetch(`${url}/api/web/media`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${session.sessionToken}`,
        'content-type': 'image/png',
        'x-file-name': 'screenshot.png',
      },
      body: SAMPLES.png,
    });
    const media = (await upload.json()) as { _id: string; contentType: string };
    expect(upload.status, JSON.stringify(media)).to.equal(201);
    expect(media.contentType).to.equal('image/png');
    const sent = await web(url, `/chats/${session.chat._id}/messages`, {
      body: { clientMessageId: 'with-media', mediaIds: [media._id] },
      token: session.sessionToken,
    });
    expect(sent.status, JSON.stringify(sent.body)).to.equal(201);
  });

  it('refuses another visitor’s chat and a chat of another integration', async () => {
    const { integration } = await fixtures.integration();
    const other = await fixtures.integration();
    const owner = await visitor(integration.publicKey);
    const stranger = await visitor(integration.publicKey);
    const foreign = await visitor(other.integration.publicKey);
    await post(owner, 'private');
    for (const intruder of [stranger, foreign]) {
      const history = await web(url, `/chats/${owner.chat._id}/messages`, { token: intruder.sessionToken });
      expect(history.status).to.equal(404);
      const write = await web(url, `/chats/${owner.chat._id}/messages`, {
        body: { clientMessageId: 'x', text: 'hi' },
        token: intruder.sessionToken,
      });
      expect(write.status).to.equal(404);
      const sse = await SseReader.open(url, owner.chat._id, intruder.sessionToken);
      expect(sse.status).to.equal(404);
    }
    const noToken = await SseReader.open(url, owner.chat._id, '');
    expect(noToken.status).to.equal(401);
    expect((await web(url, `/chats/${owner.chat._id}/messages`)).status).to.equal(401);
  });

  it('moves the anonymous chat to the contact when the visitor identifies, and starts afresh after shutdown', async () => {
    const { integration, secret } = await fixtures.integration();
    const anonymous = await visitor(integration.publicKey);
    await post(anonymous, 'I need help with my order');
    const identified = await web<SessionBody>(url, '/visitor/start-identified', {
      body: {
        publicKey: integration.publicKey,
        jwt: await siteJwt(secret, {}, { sub: 'customer-7' }),
        name: 'Grace',
        refreshToken: anonymous.refreshToken,
      },
    });
    expect(identified.status, JSON.stringify(identified.body)).to.equal(200);
    expect(identified.body.chat._id).to.equal(anonymous.chat._id);
    expect(identified.body.messages.data.map((m) => m.text)).to.deep.equal(['I need help with my order']);
    const ended = await fetch(`${url}/api/web/visitor/end`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey: integration.publicKey, refreshToken: identified.body.refreshToken }),
    });
    expect(ended.status).to.equal(204);
    const refreshed = await web(url, '/visitor/refresh', {
      body: { publicKey: integration.publicKey, refreshToken: identified.body.refreshToken },
    });
    expect(refreshed.status).to.equal(401);
    const fresh = await visitor(integration.publicKey);
    expect(fresh.chat._id).not.to.equal(anonymous.chat._id);
  });

  describe('two widget-api instances', () => {
    let replica: WidgetReplica;
    let second: WidgetApiApp;

    before(async function () {
      this.timeout(60_000);
      replica = await WidgetReplica.start(harness, 'widget-api-second');
      second = replica.app;
    });

    after(async () => replica.stop());

    it('both deliver an agent reply to their own streams', async () => {
      const { integration } = await fixtures.integration();
      const session = await visitor(integration.publicKey);
      const onFirst = await stream(session);
      const onSecond = await stream(session, undefined, replica.url);
      expect(onSecond.status).to.equal(200);
      expect(second.streamCount).to.equal(1);
      const replyId = await agentSends(session.chat._id, `to both ${testRunId}`);
      for (const reader of [onFirst, onSecond])
        await eventually(async () => messageEvents(reader).some((e) => e.message._id === replyId), 15_000, 'reply');
    });

    it('ends its streams cleanly when it stops (SIGTERM), so clients reconnect elsewhere', async () => {
      const { integration } = await fixtures.integration();
      const session = await visitor(integration.publicKey);
      const onSecond = await stream(session, undefined, replica.url);
      expect(second.streamCount).to.equal(1);
      await second.stop();
      await eventually(async () => onSecond.ended, 10_000, 'stream ended');
    });
  });
});
