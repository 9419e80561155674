import { expect } from 'chai';
import { ApiScope, eventually } from '@svc/kit';
import { ChannelStatus } from '@svc/proto/channels/v1';
import { WidgetClient, memoryStorage, type TokenStorage, type WidgetClientOptions } from '@svc-inbox/widget-client';
import { SAMPLES } from '../support/media-samples';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { FakeGoogle, SITE, WidgetFixtures, siteJwt, userHash, web } from '../support/widget';

const GOOGLE_CLIENT = 'client-e2e.apps.googleusercontent.com';
const HEARTBEAT_MS = 500;
const AGENT_SCOPES = [ApiScope.MESSAGES_READ, ApiScope.MESSAGES_SEND, ApiScope.CONVERSATIONS_MANAGE];

interface Logged {
  method: string;
  path: string;
  status: number;
  lastEventId?: string;
}

/**
 * The page's network as the client sees it: every call goes to the real stack with the site's `Origin`, is logged,
 * and can be cut (open streams fail, new requests fail) and restored; one answer can be lost after the server
 * handled the request (the case a safe retry exists for).
 */
class Network {
  readonly log: Logged[] = [];
  private down = false;
  private loseAnswerOf: string | undefined;
  private readonly streams = new Set<() => void>();

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    if (this.down) throw new TypeError('fetch failed: network down');
    const headers = new Headers(init?.headers);
    headers.set('origin', SITE);
    const response = await fetch(url, { ...init, headers });
    this.log.push({
      method: init?.method ?? 'GET',
      path: url.pathname.replace(/^\/api\/web/, ''),
      status: response.status,
      lastEventId: headers.get('last-event-id') ?? undefined,
    });
    if (this.loseAnswerOf && url.pathname.endsWith(this.loseAnswerOf)) {
      this.loseAnswerOf = undefined;
      await response.arrayBuffer();
      throw new TypeError('fetch failed: connection reset before the answer');
    }
    return url.pathname.includes('/realtime/') && response.body ? this.cuttable(response) : response;
  };

  cut(): void {
    this.down = true;
    for (const cut of [...this.streams]) cut();
  }

  restore(): void {
    this.down = false;
  }

  loseNextAnswer(pathEnd: string): void {
    this.loseAnswerOf = pathEnd;
  }

  count(predicate: (entry: Logged) => boolean): number {
    return this.log.filter(predicate).length;
  }

  private cuttable(response: Response): Response {
    const reader = response.body!.getReader();
    let cut = () => undefined as void;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        cut = () => {
          this.streams.delete(cut);
          controller.error(new TypeError('network cut'));
          void reader.cancel().catch(() => undefined);
        };
        this.streams.add(cut);
      },
      pull: async (controller) => {
        try {
          const { done, value } = await reader.read();
          if (done) {
            this.streams.delete(cut);
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          this.streams.delete(cut);
          controller.error(error);
        }
      },
      cancel: () => {
        this.streams.delete(cut);
        return reader.cancel();
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }
}

describe('@svc-inbox/widget-client against the stack (Node fetch, real widget-api)', function () {
  const google = new FakeGoogle();
  // The shortest session widget-api allows (30 s), a quick heartbeat and retry, so renewal and resync are seen soon.
  const serviceEnv: NodeJS.ProcessEnv = {
    WIDGET_SESSION_TTL_SECONDS: '30',
    WIDGET_SSE_HEARTBEAT_MS: String(HEARTBEAT_MS),
    WIDGET_SSE_RETRY_MS: '200',
  };
  const harness = new StackHarness(serviceEnv);
  let org: TestOrg;
  let fixtures: WidgetFixtures;
  let agentKey: string;
  const clients: WidgetClient[] = [];

  before(async function () {
    this.timeout(120_000);
    serviceEnv.WIDGET_GOOGLE_JWKS_URL = await google.start();
    await harness.start();
    org = await harness.newOrg('Widget client');
    fixtures = new WidgetFixtures(harness, org);
    agentKey = (await org.mintKey(AGENT_SCOPES)).key;
  });

  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy();
  });

  after(async () => {
    await harness.stop();
    await google.stop();
  });

  async function gql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const response = await harness.graphql<T>(query, variables, agentKey);
    if (!response.body.data) throw new Error(JSON.stringify(response.body));
    return response.body.data;
  }

  const agentSends = async (chatId: string, text: string) =>
    (
      await gql<{ sendMessage: { _id: string } }>(
        'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
        { c: chatId, i: { text } },
      )
    ).sendMessage._id;

  const agentReads = async (chatId: string) =>
    (
      await gql<{ getMessages: { data: { _id: string; text: string; direction: string; deliveryStatus: string }[] } }>(
        'query($c: String!) { getMessages(chatId: $c, input: { limit: 100 }) { data { _id text direction deliveryStatus } } }',
        { c: chatId },
      )
    ).getMessages.data;

  function widget(
    publicKey: string,
    network = new Network(),
    options: Partial<WidgetClientOptions> = {},
  ): { client: WidgetClient; network: Network; storage: TokenStorage; page: EventTarget } {
    const storage = options.storage ?? memoryStorage();
    const page = new EventTarget();
    const client = new WidgetClient({
      apiUrl: harness.url,
      publicKey,
      storage,
      fetch: network.fetch,
      environment: { window: page, navigator: { onLine: true } },
      heartbeatMs: HEARTBEAT_MS,
      ...options,
    });
    clients.push(client);
    return { client, network, storage, page };
  }

  const chatOf = (client: WidgetClient) => client.getState().chat?._id ?? '';
  const texts = (messages: readonly { text: string }[]) => messages.map((message) => message.text);
  const live = (client: WidgetClient) =>
    eventually(async () => client.getState().connection === 'live', 10_000, 'live');
  const sees = (client: WidgetClient, text: string) =>
    eventually(async () => client.getState().messages.find((message) => message.text === text), 10_000, `"${text}"`);

  it('runs an anonymous chat: the visitor writes, an agent answers over GraphQL, the client sees it live and acks it', async () => {
    const { integration } = await fixtures.integration();
    const { client } = widget(integration.publicKey);
    await client.loadConfig();
    expect(client.getState().config?.publicKey).to.equal(integration.publicKey);
    await client.open();
    const sent = await client.send('Hello, is anyone there?');
    expect(sent).to.include({ sendState: 'sent', direction: 'INBOUND' });
    const chatId = chatOf(client);
    expect(client.getState().chat?.status).to.equal('OPEN');
    expect((await agentReads(chatId)).map((message) => message.text)).to.include('Hello, is anyone there?');

    await live(client);
    const answerId = await agentSends(chatId, 'Hi! How can I help?');
    const answer = await sees(client, 'Hi! How can I help?');
    expect(answer).to.include({ _id: answerId, direction: 'OUTBOUND', deleted: false });
    expect(answer.media).to.deep.equal([]); // left out of the JSON by widget-api, filled in by the client
    expect(client.getState().unreadCount).to.equal(1);

    await client.markDelivered([answerId]);
    await eventually(
      async () => (await agentReads(chatId)).find((m) => m._id === answerId)?.deliveryStatus === 'DELIVERED',
    );
    await client.markRead();
    expect(client.getState().unreadCount).to.equal(0);
    await eventually(async () => (await agentReads(chatId)).find((m) => m._id === answerId)?.deliveryStatus === 'READ');
    await eventually(
      async () => client.getState().messages.find((m) => m._id === answerId)?.deliveryStatus === 'READ',
      10_000,
      'READ through the stream',
    );
  });

  it('pages back through older messages without skipping or repeating one', async () => {
    const { integration } = await fixtures.integration();
    const storage = memoryStorage();
    const first = widget(integration.publicKey, new Network(), { storage }).client;
    await first.send('first');
    const chatId = chatOf(first);
    first.destroy();
    const written = ['first'];
    for (let i = 1; i <= 34; i++) {
      written.push(`agent ${i}`);
      await agentSends(chatId, `agent ${i}`);
    }
    // A later page of the same browser resumes the session: the newest 30, then the rest on demand.
    const { client } = widget(integration.publicKey, new Network(), { storage });
    await client.start();
    expect(client.getState().messages).to.have.length(30);
    expect(client.getState().hasOlder).to.equal(true);
    await client.loadOlder();
    expect(client.getState().hasOlder).to.equal(false);
    expect(texts(client.getState().messages)).to.deep.equal(written);
  });

  describe('identified visitors', () => {
    it('identifies with each of the three proofs', async () => {
      const { integration, secret } = await fixtures.integration({ security: { googleClientId: GOOGLE_CLIENT } });
      const proofs = [
        { googleIdToken: await google.idToken(GOOGLE_CLIENT, { sub: 'g-1' }) },
        { jwt: await siteJwt(secret, { name: 'Jo' }, { sub: 'jwt-1' }) },
        { userId: 'pair-1', userHash: userHash(secret, 'pair-1') },
      ];
      const chats = new Set<string>();
      for (const proof of proofs) {
        const { client, storage } = widget(integration.publicKey);
        await client.identify(proof);
        expect(client.getState()).to.include({ visitor: 'identified', consented: true });
        expect(storage.get(`svc-widget:${integration.publicKey}:session`)).to.contain('"identified":true');
        await client.send('identified hello');
        chats.add(chatOf(client));
      }
      expect(chats.size).to.equal(3);
    });

    it('lets the strongest proof decide: a bad googleIdToken is refused even with a good jwt', async () => {
      const { integration, secret } = await fixtures.integration({ security: { googleClientId: GOOGLE_CLIENT } });
      const { client } = widget(integration.publicKey);
      const error = await client
        .identify({
          googleIdToken: await google.idToken('another-client'),
          jwt: await siteJwt(secret, {}, { sub: 'u' }),
        })
        .catch((caught: unknown) => caught);
      expect(error).to.include({ status: 401, code: 'UNAUTHENTICATED' });
      expect(client.getState().visitor).to.equal('none');
    });

    it('keeps the chat when an anonymous visitor is identified, and stays live', async () => {
      const { integration, secret } = await fixtures.integration();
      const { client } = widget(integration.publicKey);
      await client.send('before signing in');
      const chatId = chatOf(client);
      await client.identify({ userId: 'buyer-7', userHash: userHash(secret, 'buyer-7'), name: 'Buyer' });
      expect(client.getState().visitor).to.equal('identified');
      expect(chatOf(client)).to.equal(chatId);
      expect(texts(client.getState().messages)).to.include('before signing in');
      await client.send('after signing in');
      await live(client);
      await agentSends(chatId, 'Welcome back');
      await sees(client, 'Welcome back');
      expect(texts(await agentReads(chatId))).to.include.members(['before signing in', 'after signing in']);
    });
  });

  it('starts a fresh anonymous visitor on shutdown and ends the old session', async () => {
    const { integration } = await fixtures.integration();
    const { client, storage } = widget(integration.publicKey);
    await client.send('my old chat');
    const oldChat = chatOf(client);
    const key = `svc-widget:${integration.publicKey}:session`;
    const oldToken = (JSON.parse(storage.get(key)!) as { refreshToken: string }).refreshToken;
    await client.shutdown();
    expect(client.getState().visitor).to.equal('anonymous');
    expect(chatOf(client)).not.to.equal(oldChat);
    expect(client.getState().messages).to.deep.equal([]);
    expect(storage.get(key)).not.to.contain(oldToken);
    const reuse = await web(harness.url, '/visitor/refresh', {
      body: { publicKey: integration.publicKey, refreshToken: oldToken },
    });
    expect(reuse.status).to.equal(401);
  });

  it('resyncs after the network was cut: every message missed comes once, nothing twice', async () => {
    const { integration } = await fixtures.integration();
    const { client, network, page } = widget(integration.publicKey);
    await client.send('before the cut');
    const chatId = chatOf(client);
    await live(client);
    await agentSends(chatId, 'answer 1');
    await sees(client, 'answer 1');
    const seqBefore = client.getState().chat!.lastEventSeq;

    network.cut();
    await eventually(async () => client.getState().connection !== 'live', 10_000, 'the drop noticed');
    for (const text of ['missed 1', 'missed 2', 'missed 3']) await agentSends(chatId, text);
    network.restore();
    page.dispatchEvent(new Event('online'));
    await sees(client, 'missed 3');
    await live(client);

    const ids = client.getState().messages.map((message) => message._id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(texts(client.getState().messages)).to.deep.equal([
      'before the cut',
      'answer 1',
      'missed 1',
      'missed 2',
      'missed 3',
    ]);
    const resumed = network.log.filter((entry) => entry.path.startsWith('/realtime/') && entry.status === 200).pop();
    expect(Number(resumed?.lastEventId)).to.be.at.least(seqBefore);
  });

  it('stops reconnecting once the integration is disabled (404)', async () => {
    const { integration } = await fixtures.integration();
    const { client, network, page } = widget(integration.publicKey);
    await client.open();
    await live(client);
    await fixtures.update(integration.id, { status: ChannelStatus.DISABLED });
    await eventually(async () => client.getState().connection === 'ended', 10_000, 'ended');
    expect(client.getState().error).to.include({ status: 404 });
    const attempts = network.count((entry) => entry.path.startsWith('/realtime/'));
    page.dispatchEvent(new Event('online'));
    client.reconnect();
    await client.loadGate().catch(() => undefined);
    expect(network.count((entry) => entry.path.startsWith('/realtime/'))).to.equal(attempts);
  });

  it('renews the session before it expires, without a 401 on the way', async () => {
    const { integration } = await fixtures.integration();
    // A margin of 28 s on a 30 s session: renewed about 2 s after each handshake.
    const { client, network } = widget(integration.publicKey, new Network(), { refreshMarginMs: 28_000 });
    await client.send('one');
    await eventually(
      async () => network.count((entry) => entry.path === '/visitor/refresh' && entry.status === 200) >= 1,
      15_000,
      'a refresh',
    );
    const sent = await client.send('two');
    expect(sent.sendState).to.equal('sent');
    expect(network.count((entry) => entry.status === 401)).to.equal(0);
    expect(client.getState().visitor).to.equal('anonymous');
  });

  it('uploads an attachment with progress and sends it', async () => {
    const { integration } = await fixtures.integration();
    const { client } = widget(integration.publicKey);
    await client.open();
    const file = new Blob([SAMPLES.png], { type: 'image/png' });
    const progress: [number, number][] = [];
    const media = await client.upload(file, {
      fileName: 'pixel.png',
      onProgress: (loaded, total) => progress.push([loaded, total]),
    });
    expect(media).to.include({ fileName: 'pixel.png', contentType: 'image/png' });
    expect(progress[0]).to.deep.equal([0, file.size]);
    expect(progress[progress.length - 1]).to.deep.equal([file.size, file.size]);

    const uploads: string[] = [];
    client.subscribe((state) => {
      for (const upload of state.uploads) uploads.push(`${upload.state} ${upload.loaded}/${upload.total}`);
    });
    const sent = await client.send('the receipt', { attachments: [{ file, fileName: 'receipt.png' }] });
    expect(sent.sendState).to.equal('sent');
    expect(uploads).to.include(`done ${file.size}/${file.size}`);
    const arrived = await eventually(
      async () => client.getState().messages.find((message) => message._id === sent._id && message.media.length > 0),
      10_000,
      'the message with its media',
    );
    expect(arrived.media[0]).to.include({ fileName: 'receipt.png' });
  });

  it('retries a send whose answer was lost with the same clientMessageId: one message', async () => {
    const { integration } = await fixtures.integration();
    const { client, network } = widget(integration.publicKey);
    await client.open();
    network.loseNextAnswer('/messages');
    const failed = await client.send('only once');
    expect(failed.sendState).to.equal('failed');
    const sent = await client.retry(failed.key);
    expect(sent).to.include({ sendState: 'sent', key: failed.key });
    const chatId = chatOf(client);
    expect((await agentReads(chatId)).filter((message) => message.text === 'only once')).to.have.length(1);
    await eventually(async () => client.getState().messages.filter((m) => m.text === 'only once').length === 1);
    expect(client.getState().messages.filter((message) => message.text === 'only once')).to.have.length(1);
  });
});
