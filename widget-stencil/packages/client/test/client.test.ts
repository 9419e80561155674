import { expect } from 'chai';
import { WidgetClient, type WidgetClientOptions } from '../src/index.js';
import {
  FakeApi,
  FakeStream,
  agentMessage,
  eventually,
  json,
  recordingStorage,
  sessionAnswer,
  sseMessage,
} from './fake-api.js';

const KEY = 'wpk_test';
const STORED = `svc-widget:${KEY}:session`;

describe('WidgetClient', () => {
  let api: FakeApi;
  let storage: ReturnType<typeof recordingStorage>;
  const clients: WidgetClient[] = [];
  const streams: FakeStream[] = [];

  function client(options: Partial<WidgetClientOptions> = {}): WidgetClient {
    const created = new WidgetClient({
      apiUrl: 'http://api.test/',
      publicKey: KEY,
      storage,
      fetch: api.fetch,
      environment: null,
      ...options,
    });
    clients.push(created);
    return created;
  }

  /** Every stream request gets a fresh FakeStream (pushed to `streams`) that starts with `retry: 5`. */
  function streamRoute(chatId = 'chat-1') {
    api.on(`GET /realtime/${chatId}`, () => {
      const stream = new FakeStream();
      streams.push(stream);
      stream.push('retry: 5\n\n');
      return new Response(stream.body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    });
  }

  beforeEach(() => {
    api = new FakeApi();
    storage = recordingStorage();
    streamRoute();
  });

  afterEach(() => {
    for (const created of clients.splice(0)) created.destroy();
    for (const stream of streams.splice(0)) stream.close();
  });

  describe('storage policy', () => {
    it('writes nothing and creates no visitor before the widget is opened', async () => {
      api.on('GET /config/wpk_test', () => json(200, { publicKey: KEY }, { etag: '"v1"' }));
      const widget = client();
      await widget.loadGate().catch(() => undefined);
      await widget.loadConfig();
      await widget.start();
      widget.setTyping(true);
      await widget.markRead();
      expect(storage.writes).to.deep.equal([]);
      expect(api.paths().filter((path) => !path.startsWith('GET /config'))).to.deep.equal([]);
      expect(widget.getState()).to.include({ consented: false, visitor: 'none', connection: 'idle' });
    });

    it('creates the visitor and stores its refresh token once the widget is opened', async () => {
      const answer = sessionAnswer();
      api.on('POST /visitor/start-anonymous', () => json(200, answer));
      const widget = client();
      await widget.open({ name: 'Ada' });
      expect(api.requests[0]).to.deep.include({
        path: '/visitor/start-anonymous',
        body: { publicKey: KEY, name: 'Ada' },
      });
      expect(JSON.parse(storage.values.get(STORED)!)).to.deep.equal({
        refreshToken: answer.refreshToken,
        identified: false,
      });
      expect(widget.getState()).to.include({ consented: true, visitor: 'anonymous' });
      // The session token stays in memory: never in storage.
      expect([...storage.values.values()].join()).not.to.contain(answer.sessionToken);
    });

    it('stores the token when the page identified the visitor, without the widget being opened', async () => {
      api.on('POST /visitor/start-identified', () => json(200, sessionAnswer('chat-1', { identified: true })));
      await client().identify({ userId: 'u-1', userHash: 'abc' });
      expect(storage.writes).to.deep.equal([`set ${STORED}`]);
    });

    it('resumes a stored session with /visitor/refresh instead of creating a visitor', async () => {
      storage.values.set(STORED, JSON.stringify({ refreshToken: 'wrt_old', identified: false }));
      const answer = sessionAnswer();
      api.on('POST /visitor/refresh', () => json(200, answer));
      const widget = client();
      await widget.start();
      expect(api.requests[0]).to.deep.include({
        path: '/visitor/refresh',
        body: { publicKey: KEY, refreshToken: 'wrt_old' },
      });
      expect(JSON.parse(storage.values.get(STORED)!).refreshToken).to.equal(answer.refreshToken);
      expect(widget.getState().visitor).to.equal('anonymous');
    });

    it('forgets a stored token the server refuses and still creates no visitor', async () => {
      storage.values.set(STORED, JSON.stringify({ refreshToken: 'wrt_old', identified: false }));
      api.on('POST /visitor/refresh', () => json(401, { error: { code: 'UNAUTHENTICATED', message: 'no' } }));
      const widget = client();
      await widget.start();
      expect(storage.values.has(STORED)).to.equal(false);
      expect(api.paths()).to.deep.equal(['POST /visitor/refresh']);
      expect(widget.getState().visitor).to.equal('none');
    });

    it('keeps the stored token when the integration is disabled (404): enabled again, it works again', async () => {
      storage.values.set(STORED, JSON.stringify({ refreshToken: 'wrt_old', identified: false }));
      api.on('POST /visitor/refresh', () => json(404, { error: { code: 'NOT_FOUND', message: 'gone' } }));
      const widget = client();
      const error = await widget.start().catch((caught: unknown) => caught);
      expect(error).to.include({ status: 404 });
      expect(widget.getState().connection).to.equal('ended');
      expect(storage.values.has(STORED)).to.equal(true);
    });
  });

  describe('identify', () => {
    it('sends only the proof that decides (spec 2.4) with the profile, and moves the anonymous chat', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      api.on('POST /visitor/start-identified', () => json(200, sessionAnswer('chat-1', { identified: true })));
      const widget = client();
      await widget.open();
      const anonymousToken = JSON.parse(storage.values.get(STORED)!).refreshToken as string;
      await widget.identify({ googleIdToken: 'g', jwt: 'j', userId: 'u', userHash: 'h', name: 'Ada' });
      await widget.identify({ jwt: 'j', userId: 'u', userHash: 'h' });
      await widget.identify({ userId: 'u', userHash: 'h' });
      const bodies = api.requests.filter((request) => request.path === '/visitor/start-identified').map((r) => r.body);
      expect(bodies[0]).to.deep.equal({
        publicKey: KEY,
        googleIdToken: 'g',
        name: 'Ada',
        refreshToken: anonymousToken,
      });
      // An identified visitor's token is never handed to another identity.
      expect(bodies[1]).to.deep.equal({ publicKey: KEY, jwt: 'j' });
      expect(bodies[2]).to.deep.equal({ publicKey: KEY, userId: 'u', userHash: 'h' });
      expect(widget.getState().visitor).to.equal('identified');
    });

    it('refuses an identity without a proof before any request', async () => {
      const widget = client();
      const error = await widget.identify({ userId: 'u' }).catch((caught: unknown) => caught);
      expect(error).to.include({ status: 400, code: 'BAD_USER_INPUT' });
      expect((error as { details: { field: string } }).details.field).to.equal('userHash');
      expect(api.requests).to.deep.equal([]);
    });

    it('null ends the session, forgets the token and starts a fresh anonymous visitor', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer('chat-1')));
      api.on('POST /visitor/end', () => new Response(null, { status: 204 }));
      const widget = client();
      await widget.open();
      const first = JSON.parse(storage.values.get(STORED)!).refreshToken as string;
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer('chat-2')));
      await widget.identify(null);
      const end = api.requests.find((request) => request.path === '/visitor/end');
      expect(end?.body).to.deep.equal({ publicKey: KEY, refreshToken: first });
      expect(storage.writes).to.include(`remove ${STORED}`);
      expect(widget.getState().chat?._id).to.equal('chat-2');
      const fresh = api.requests.filter((request) => request.path === '/visitor/start-anonymous').pop();
      expect(fresh?.body).to.deep.equal({ publicKey: KEY });
    });
  });

  describe('config', () => {
    it('revalidates with If-None-Match and reuses the held config on 304', async () => {
      const config = { publicKey: KEY, name: 'Shop' };
      api.on('GET /config/wpk_test', (request) =>
        request.headers['if-none-match'] === '"v1"'
          ? new Response(null, { status: 304 })
          : json(200, config, { etag: '"v1"' }),
      );
      const widget = client();
      const first = await widget.loadConfig();
      const second = await widget.loadConfig();
      expect(second).to.equal(first);
      expect(api.requests.map((request) => request.headers['if-none-match'])).to.deep.equal([undefined, '"v1"']);
    });
  });

  describe('sessions', () => {
    it('renews the session once on a 401 and sends again with the new token', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      const renewed = sessionAnswer();
      api.on('POST /visitor/refresh', () => json(200, renewed));
      let calls = 0;
      api.on('POST /chats/chat-1/messages', (request) => {
        calls++;
        if (request.headers.authorization !== `Bearer ${renewed.sessionToken}`)
          return json(401, { error: { code: 'UNAUTHENTICATED', message: 'expired' } });
        return json(201, {
          _id: 'm1',
          chatId: 'chat-1',
          clientMessageId: request.body?.clientMessageId,
          createdAt: '2026-11-23T10:00:00.000Z',
        });
      });
      const widget = client();
      const sent = await widget.send('hello');
      expect(sent.sendState).to.equal('sent');
      expect(calls).to.equal(2);
    });

    it('gives up cleanly when the renewed session is refused too', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      api.on('POST /visitor/refresh', () => json(401, { error: { code: 'UNAUTHENTICATED', message: 'no' } }));
      api.on('POST /chats/chat-1/messages', () => json(401, { error: { code: 'UNAUTHENTICATED', message: 'no' } }));
      const widget = client();
      const sent = await widget.send('hello');
      expect(sent.sendState).to.equal('failed');
      expect(widget.getState()).to.include({ connection: 'ended', visitor: 'none' });
      expect(storage.values.has(STORED)).to.equal(false);
      expect(api.paths().filter((path) => path === 'POST /visitor/refresh')).to.have.length(1);
    });

    it('renews the session before it expires', async () => {
      api.on('POST /visitor/start-anonymous', () =>
        json(200, sessionAnswer('chat-1', { sessionExpiresAt: new Date(Date.now() + 200).toISOString() })),
      );
      api.on('POST /visitor/refresh', () => json(200, sessionAnswer()));
      await client().open();
      await eventually(() => api.paths().includes('POST /visitor/refresh'), 'a refresh');
    });

    it('measures the session lifetime on the server clock (the token), not against a skewed local clock', async () => {
      const claims = Buffer.from(JSON.stringify({ iat: 1_000, exp: 1_001 })).toString('base64url');
      // sessionExpiresAt says 15 minutes (a clock far behind would believe it); the token says one second.
      api.on('POST /visitor/start-anonymous', () =>
        json(200, sessionAnswer('chat-1', { sessionToken: `e30.${claims}.sig` })),
      );
      api.on('POST /visitor/refresh', () => json(200, sessionAnswer()));
      await client().open();
      await eventually(() => api.paths().includes('POST /visitor/refresh'), 'a refresh within the token lifetime');
    });
  });

  describe('sending', () => {
    it('retries a failed send with the same clientMessageId', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      let fail = true;
      api.on('POST /chats/chat-1/messages', (request) =>
        fail
          ? json(503, { error: { code: 'UNAVAILABLE', message: 'down' } })
          : json(201, {
              _id: 'm1',
              chatId: 'chat-1',
              clientMessageId: request.body?.clientMessageId,
              createdAt: '2026-11-23T10:00:00.000Z',
            }),
      );
      const widget = client();
      const states: string[] = [];
      widget.subscribe((state) => {
        const own = state.messages[0];
        if (own && states[states.length - 1] !== own.sendState) states.push(own.sendState);
      });
      const failed = await widget.send('hello');
      expect(failed).to.include({ sendState: 'failed' });
      fail = false;
      const sent = await widget.retry(failed.key);
      expect(sent).to.include({ sendState: 'sent', _id: 'm1', key: failed.key });
      const ids = api.requests.filter((r) => r.path === '/chats/chat-1/messages').map((r) => r.body?.clientMessageId);
      expect(ids).to.have.length(2);
      expect(ids[0]).to.equal(ids[1]);
      expect(states).to.deep.equal(['pending', 'failed', 'pending', 'sent']);
    });

    it('sends typing at most once per throttle interval and a final false once', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      api.on('POST /chats/chat-1/typing', () => new Response(null, { status: 204 }));
      const widget = client({ typingThrottleMs: 60_000 });
      await widget.open();
      for (let i = 0; i < 5; i++) widget.setTyping(true);
      widget.setTyping(false);
      widget.setTyping(false);
      await eventually(() => api.requests.filter((r) => r.path.endsWith('/typing')).length === 2, 'typing calls');
      expect(api.requests.filter((r) => r.path.endsWith('/typing')).map((r) => r.body?.typing)).to.deep.equal([
        true,
        false,
      ]);
    });
  });

  describe('stream', () => {
    it('reconnects with the last processed seq and keeps one copy of a replayed message', async () => {
      api.on('POST /visitor/start-anonymous', () =>
        json(
          200,
          sessionAnswer('chat-1', { chat: { _id: 'chat-1', status: 'OPEN', unreadCount: 0, lastEventSeq: 4 } }),
        ),
      );
      const widget = client({ random: () => 0 });
      await widget.open();
      await eventually(() => streams.length === 1 && widget.getState().connection === 'live', 'live');
      expect(api.requests[api.requests.length - 1]?.headers['last-event-id']).to.equal('4');
      streams[0]!.push(sseMessage(5, agentMessage('a5', 5)) + sseMessage(6, agentMessage('a6', 6)));
      await eventually(() => widget.getState().messages.length === 2, 'two messages');
      streams[0]!.close();
      await eventually(() => streams.length === 2, 'a second connection');
      expect(api.requests[api.requests.length - 1]?.headers['last-event-id']).to.equal('6');
      // The server replays seq 6 (a reconnect race) and then the next one.
      streams[1]!.push(sseMessage(6, agentMessage('a6', 6)) + sseMessage(7, agentMessage('a7', 7)));
      await eventually(() => widget.getState().messages.length === 3, 'three messages');
      expect(widget.getState().messages.map((message) => message._id)).to.deep.equal(['a5', 'a6', 'a7']);
      expect(widget.getState().unreadCount).to.equal(3);
    });

    it('stops for good on a 404', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      const widget = client({ random: () => 0 });
      await widget.open();
      await eventually(() => streams.length === 1, 'a stream');
      api.on('GET /realtime/chat-1', () => json(404, { error: { code: 'NOT_FOUND', message: 'gone' } }));
      streams[0]!.close();
      await eventually(() => widget.getState().connection === 'ended', 'ended');
      const attempts = api.paths().filter((path) => path.startsWith('GET /realtime')).length;
      expect(attempts).to.equal(2);
      expect(widget.getState().error).to.include({ status: 404 });
    });

    it('keeps the session when a 401 on the stream meets a renewal lost to the network', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      const widget = client({ random: () => 0 });
      await widget.open();
      await eventually(() => streams.length === 1, 'a stream');
      let renewals = 0;
      api.on('POST /visitor/refresh', () => {
        renewals++;
        if (renewals === 1) throw new TypeError('fetch failed');
        return json(200, sessionAnswer());
      });
      let refusals = 0;
      api.on('GET /realtime/chat-1', (request) => {
        if (request.headers.authorization === 'Bearer ' + String(firstToken)) {
          refusals++;
          return json(401, { error: { code: 'UNAUTHENTICATED', message: 'expired' } });
        }
        const stream = new FakeStream();
        streams.push(stream);
        return new Response(stream.body, { status: 200 });
      });
      const firstToken = api.requests.find((r) => r.path === '/realtime/chat-1')?.headers.authorization?.slice(7);
      streams[0]!.close();
      await eventually(() => streams.length === 2 && widget.getState().connection === 'live', 'live again');
      expect(refusals).to.equal(2);
      expect(renewals).to.equal(2);
      expect(widget.getState().visitor).to.equal('anonymous');
    });

    it('reconnects when no heartbeat arrived for two heartbeat intervals', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      const widget = client({ heartbeatMs: 20 });
      await widget.open();
      await eventually(() => streams.length >= 2, 'a reconnect after the stream went silent');
      expect(widget.getState().connection).to.be.oneOf(['reconnecting', 'live']);
    });

    it('resyncs at once when the browser comes back online or the page becomes visible', async () => {
      const events = new EventTarget();
      const page = Object.assign(new EventTarget(), { visibilityState: 'visible' });
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      const navigator = { onLine: true };
      const widget = client({ environment: { window: events, document: page, navigator } });
      await widget.open();
      await eventually(() => streams.length === 1 && widget.getState().connection === 'live', 'live');
      events.dispatchEvent(new Event('online'));
      await eventually(() => streams.length === 2, 'a reconnect on online');
      // Visible while live and recently heard from: no reconnect needed; a stream silent too long reconnects.
      await eventually(() => widget.getState().connection === 'live', 'live again');
      navigator.onLine = false;
      events.dispatchEvent(new Event('offline'));
      await eventually(() => widget.getState().connection === 'offline', 'offline');
      navigator.onLine = true;
      page.dispatchEvent(new Event('visibilitychange'));
      await eventually(() => streams.length === 3, 'a reconnect on visible');
    });

    it('shows agent typing until its own timeout', async () => {
      api.on('POST /visitor/start-anonymous', () => json(200, sessionAnswer()));
      const widget = client({ agentTypingTimeoutMs: 30 });
      await widget.open();
      await eventually(() => streams.length === 1, 'a stream');
      streams[0]!.push('event: typing\ndata: {"typing":true,"displayName":"Ann"}\n\n');
      await eventually(() => widget.getState().agentTyping?.displayName === 'Ann', 'typing on');
      await eventually(() => widget.getState().agentTyping === null, 'typing off by timeout');
    });
  });
});
