import { createHmac, randomBytes } from 'node:crypto';
import { FakePlatform, deliverWebhook, type FakeAnswer, type RecordedRequest } from './fake-platform';

/**
 * A local stand-in for the Viber REST bot API (developers.viber.com/docs/api/rest-bot-api): `POST /pa/<method>` with
 * the account's token in `X-Viber-Auth-Token`, answering `{status, status_message, …}` (HTTP 200 even for errors, as
 * Viber does). `set_webhook` first posts the signed `event: webhook` check to the URL and fails with status 1
 * (invalidUrl) unless it is answered 200. Callbacks are signed like Viber's: `X-Viber-Content-Signature` = hex
 * HMAC-SHA256 of the body keyed with the auth token. Message tokens are 64-bit integers written as JSON numbers,
 * larger than 2^53, as Viber's are. Only subscribed users can be messaged (status 6 otherwise).
 */
export interface FakeViberAccount {
  authToken: string;
  id: string;
  name: string;
  uri: string;
  icon: string;
  webhook?: { url: string; eventTypes: string[]; sendName: boolean; sendPhoto: boolean };
  subscribers: Set<string>;
}

export interface ViberUserShape {
  id: string;
  name: string;
  avatar?: string;
  language: string;
  country: string;
  api_version: number;
}

type Body = Record<string, unknown>;

/** Above Number.MAX_SAFE_INTEGER, as Viber's tokens are. */
const TOKEN_BASE = 5_491_234_567_890_000_000n;

export class FakeChatAppC extends FakePlatform {
  readonly accounts = new Map<string, FakeViberAccount>();
  /** The `event: webhook` checks set_webhook made, with the answer it got. */
  readonly webhookChecks: { url: string; status: number }[] = [];
  private nextToken = 1n;
  /** When false, set_webhook skips the check (an adapter test with no inbound route). */
  checkWebhooks = true;

  constructor() {
    super();
    // `/pa/<method>` as Viber serves it; `/<method>` too, so either `url` or `apiUrl` works as the base.
    this.route('POST', /^(?:\/pa)?\/\w+$/, (request) => this.method(request));
    this.route('GET', /^\/media\/.+$/, (request) => this.media(request));
    this.route('HEAD', /^\/media\/.+$/, (request) => this.media(request));
  }

  /** The base URL the adapter is given (CHAT_APP_C_API_URL); the real one is https://chatapi.viber.com/pa. */
  get apiUrl(): string {
    return `${this.url}/pa`;
  }

  addAccount(name = 'Acme Support'): FakeViberAccount {
    const hex = (n: number): string => randomBytes(n).toString('hex');
    const account: FakeViberAccount = {
      authToken: `${hex(8)}-${hex(8)}-${hex(8)}`,
      id: `pa:${BigInt('0x' + hex(7)).toString()}`,
      name,
      uri: name.toLowerCase().replace(/\W+/g, ''),
      icon: `${this.url}/media/icon.jpg`,
      subscribers: new Set(),
    };
    this.accounts.set(account.authToken, account);
    return account;
  }

  /** A Viber user id (unique per user and account: base64 of 16 bytes). */
  user(overrides: Partial<ViberUserShape> = {}): ViberUserShape {
    return {
      id: randomBytes(16).toString('base64'),
      name: 'Grace Hopper',
      language: 'en',
      country: 'GB',
      api_version: 10,
      ...overrides,
    };
  }

  subscribe(account: FakeViberAccount, user: ViberUserShape): void {
    account.subscribers.add(user.id);
  }

  calls(account: FakeViberAccount, method: string): Body[] {
    return this.received('POST', new RegExp(`^(?:/pa)?/${method}$`))
      .filter((r) => r.headers['x-viber-auth-token'] === account.authToken)
      .map((r) => (r.json ?? {}) as Body);
  }

  /** The raw `message_token` text of each successful send (what a later status callback names). */
  readonly sentTokens: string[] = [];

  /** Answers `status` (and its `status_message`) to the next `times` calls of `method`. */
  failMethod(method: string, status: number, statusMessage: string, times = 1): void {
    this.failNext(
      (r) => r.path.endsWith(`/${method}`),
      { status: 200, body: { status, status_message: statusMessage, chat_hostname: 'SN-CHAT-01_' } },
      times,
    );
  }

  // ---- callbacks as Viber builds them (raw JSON text: tokens are 64-bit numbers) ----

  newToken(): string {
    return (TOKEN_BASE + this.nextToken++).toString();
  }

  messageCallback(user: ViberUserShape, message: Body, token = this.newToken()): string {
    return `{"event":"message","timestamp":${Date.now()},"chat_hostname":"SN-CHAT-01_","message_token":${token},"sender":${JSON.stringify(user)},"message":${JSON.stringify(message)},"silent":false}`;
  }

  textCallback(user: ViberUserShape, text: string, token?: string): string {
    return this.messageCallback(user, { type: 'text', text }, token);
  }

  /** `delivered`, `seen` or `failed` about a message we sent. */
  statusCallback(event: 'delivered' | 'seen' | 'failed', messageToken: string, userId: string, desc?: string): string {
    return `{"event":"${event}","timestamp":${Date.now()},"chat_hostname":"SN-CHAT-01_","message_token":${messageToken},"user_id":${JSON.stringify(userId)}${desc ? `,"desc":${JSON.stringify(desc)}` : ''}}`;
  }

  subscribedCallback(user: ViberUserShape): string {
    return `{"event":"subscribed","timestamp":${Date.now()},"chat_hostname":"SN-CHAT-01_","user":${JSON.stringify(user)},"message_token":${this.newToken()}}`;
  }

  unsubscribedCallback(userId: string): string {
    return `{"event":"unsubscribed","timestamp":${Date.now()},"chat_hostname":"SN-CHAT-01_","user_id":${JSON.stringify(userId)},"message_token":${this.newToken()}}`;
  }

  conversationStartedCallback(user: ViberUserShape): string {
    return `{"event":"conversation_started","timestamp":${Date.now()},"chat_hostname":"SN-CHAT-01_","message_token":${this.newToken()},"type":"open","context":"","user":${JSON.stringify(user)},"subscribed":false}`;
  }

  webhookCallback(): string {
    return `{"event":"webhook","timestamp":${Date.now()},"chat_hostname":"SN-CHAT-01_","message_token":${this.newToken()}}`;
  }

  /** Viber's signature of a body: hex HMAC-SHA256 keyed with the account's auth token. */
  sign(account: FakeViberAccount, body: string): string {
    return createHmac('sha256', account.authToken).update(body).digest('hex');
  }

  /** Posts a callback to the account's webhook, signed (or with `signature` to test a wrong one, null: none). */
  async deliverCallback(
    account: FakeViberAccount,
    body: string,
    options: { signature?: string | null } = {},
  ): Promise<{ status: number; text: string }> {
    if (!account.webhook) throw new Error(`fake: account ${account.name} has no webhook`);
    // As Viber: a user's message subscribes them (without a subscribed callback); unsubscribing removes them.
    const event = JSON.parse(body) as {
      event: string;
      sender?: { id: string };
      user?: { id: string };
      user_id?: string;
    };
    if (event.event === 'message' && event.sender) account.subscribers.add(event.sender.id);
    if (event.event === 'subscribed' && event.user) account.subscribers.add(event.user.id);
    if (event.event === 'unsubscribed' && event.user_id) account.subscribers.delete(event.user_id);
    return this.post(account, account.webhook.url, body, options.signature);
  }

  /** Status callbacks in the given order (Viber does not promise one): e.g. seen before delivered. */
  async deliverStatuses(
    account: FakeViberAccount,
    messageToken: string,
    userId: string,
    order: ('delivered' | 'seen' | 'failed')[],
  ): Promise<number[]> {
    const statuses: number[] = [];
    for (const event of order)
      statuses.push(
        (
          await this.deliverCallback(
            account,
            this.statusCallback(
              event,
              messageToken,
              userId,
              event === 'failed' ? 'the client could not show the message' : undefined,
            ),
          )
        ).status,
      );
    return statuses;
  }

  /** A file in Viber's media store: the URL a picture/video/file callback names. */
  mediaUrl(name: string): string {
    return `${this.url}/media/${name}`;
  }

  // ---- the REST API ----

  private post(
    account: FakeViberAccount,
    url: string,
    body: string,
    signature?: string | null,
  ): Promise<{ status: number; text: string }> {
    const header = signature === undefined ? this.sign(account, body) : signature;
    return deliverWebhook(url, body, header ? { 'x-viber-content-signature': header } : {});
  }

  private async method(request: RecordedRequest): Promise<FakeAnswer> {
    const token = request.headers['x-viber-auth-token'];
    if (!token) return viber(2, 'missing_auth_token');
    const account = this.accounts.get(String(token));
    if (!account) return viber(2, 'invalidAuthToken');
    const body = (request.json ?? {}) as Body;
    switch (request.path.replace(/^\/pa/, '').slice(1)) {
      case 'get_account_info':
        return viber(0, 'ok', {
          id: account.id,
          name: account.name,
          uri: account.uri,
          icon: account.icon,
          background: '',
          category: 'Business',
          subcategory: 'Support',
          location: { lon: 0, lat: 0 },
          country: 'GB',
          webhook: account.webhook?.url ?? '',
          event_types: account.webhook?.eventTypes ?? [],
          subscribers_count: account.subscribers.size,
          members: [],
        });
      case 'set_webhook':
        return this.setWebhook(account, body);
      case 'send_message':
        return this.sendMessage(account, body);
      case 'get_user_details':
        return viber(0, 'ok', { user: { id: body['id'], name: 'Grace Hopper' } });
      default:
        return viber(3, 'badData');
    }
  }

  private async setWebhook(account: FakeViberAccount, body: Body): Promise<FakeAnswer> {
    const url = String(body['url'] ?? '');
    if (!url) {
      account.webhook = undefined;
      return viber(0, 'ok');
    }
    if (this.checkWebhooks) {
      const answer = await this.post(account, url, this.webhookCallback()).catch(() => ({ status: 0, text: '' }));
      this.webhookChecks.push({ url, status: answer.status });
      if (answer.status !== 200) return viber(1, 'invalidUrl');
    }
    const eventTypes = (body['event_types'] as string[] | undefined) ?? [
      'delivered',
      'seen',
      'failed',
      'subscribed',
      'unsubscribed',
      'conversation_started',
    ];
    account.webhook = { url, eventTypes, sendName: body['send_name'] === true, sendPhoto: body['send_photo'] === true };
    return viber(0, 'ok', { event_types: eventTypes });
  }

  private sendMessage(account: FakeViberAccount, body: Body): FakeAnswer {
    const sender = body['sender'] as { name?: string } | undefined;
    if (!body['receiver'] || !body['type'] || !sender?.name) return viber(4, 'missingData');
    if (sender.name.length > 28) return viber(3, 'badData');
    if (!account.subscribers.has(String(body['receiver']))) return viber(6, 'receiverNotSubscribed');
    if ((body['type'] === 'video' || body['type'] === 'file') && !(Number(body['size']) > 0))
      return viber(4, 'missingData');
    const token = this.newToken();
    this.sentTokens.push(token);
    return {
      status: 200,
      body: `{"status":0,"status_message":"ok","message_token":${token},"chat_hostname":"SN-CHAT-01_","billing_status":1}`,
    };
  }

  private media(request: RecordedRequest): FakeAnswer {
    const name = request.path.slice('/media/'.length);
    const bytes = `viber-media:${name}`;
    const type = name.endsWith('.jpg')
      ? 'image/jpeg'
      : name.endsWith('.mp4')
        ? 'video/mp4'
        : 'application/octet-stream';
    return {
      status: 200,
      body: request.method === 'HEAD' ? '' : bytes,
      headers: { 'content-type': type, 'content-length': String(Buffer.byteLength(bytes)) },
    };
  }
}

function viber(status: number, statusMessage: string, fields: Body = {}): FakeAnswer {
  return { status: 200, body: { status, status_message: statusMessage, ...fields } };
}
