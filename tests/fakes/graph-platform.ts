import { createHmac, randomBytes } from 'node:crypto';
import { deliverWebhook, FakePlatform, type FakeAnswer, type RecordedRequest } from './fake-platform';

/** The Graph API's error answer, as the platform words it. */
export function graphError(
  status: number,
  code: number,
  message: string,
  extra: Record<string, unknown> = {},
): FakeAnswer {
  return {
    status,
    body: {
      error: {
        message,
        type: code === 190 ? 'OAuthException' : 'GraphMethodException',
        code,
        ...extra,
        fbtrace_id: 'Afake',
      },
    },
  };
}

export const invalidToken = (): FakeAnswer =>
  graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');

/** `sha256=<hex HMAC-SHA256(app secret, raw body)>`, exactly as the platform signs webhooks. */
export function signHub(appSecret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

export function fakeId(digits = 15): string {
  let id = String(1 + (randomBytes(1)[0]! % 9));
  while (id.length < digits) id += String(randomBytes(1)[0]! % 10);
  return id;
}

export const fakeSecret = (): string => randomBytes(16).toString('hex');
export const fakeToken = (prefix: string): string => `${prefix}${randomBytes(24).toString('base64url')}`;

/** What an authorised caller of a Graph fake is: one of the fake's accounts, or its app (`<APP_ID>|<APP_SECRET>`). */
export interface GraphCaller<A> {
  account: A;
  token: string;
}

/**
 * The Graph API parts both Meta-shaped fakes share: bearer tokens with `appsecret_proof` checked like the platform
 * (a wrong proof is error 100), the Facebook Login dialog that redirects back with a code, the code exchange, and
 * signed webhook delivery.
 */
export abstract class GraphFakePlatform<A extends { appId: string; appSecret: string }> extends FakePlatform {
  /** Codes the dialog handed out, by code: the account it authorises and the redirect URI it was given. */
  private readonly codes = new Map<string, { account: A; redirectUri: string }>();
  /** User tokens the code exchange issued. */
  protected readonly userTokens = new Map<string, A>();
  /** The user tokens `fb_exchange_token` made long-lived (the code's own expire in about an hour). */
  protected readonly longLivedUserTokens = new Set<string>();

  protected abstract accountOfToken(token: string): A | undefined;
  /** The account that says yes in the dialog (tests choose with `consentAs`). */
  protected consenting: A | undefined;

  constructor() {
    super();
    this.route('GET', /^\/dialog\/oauth$/, (r) => this.dialog(r));
    this.route('GET', /^\/oauth\/access_token$/, (r) => this.exchange(r));
  }

  /** The next dialog visit authorises this account. */
  consentAs(account: A): void {
    this.consenting = account;
  }

  /** The dialog's URL base (what the adapter's `dialogUrl` option points at). */
  get dialogUrl(): string {
    return `${this.url}/dialog/oauth`;
  }

  /** The caller's account when the bearer token is known and the `appsecret_proof`, if any, matches. */
  protected authorise(request: RecordedRequest): GraphCaller<A> | FakeAnswer {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice(7) : (request.query.get('access_token') ?? '');
    const account = this.accountOfToken(token) ?? this.userTokens.get(token);
    if (!account) return invalidToken();
    const proof = request.query.get('appsecret_proof');
    if (proof !== null && proof !== createHmac('sha256', account.appSecret).update(token).digest('hex')) {
      return graphError(400, 100, 'Invalid appsecret_proof provided in the API argument');
    }
    return { account, token };
  }

  protected static refused(caller: GraphCaller<unknown> | FakeAnswer): caller is FakeAnswer {
    return 'status' in caller;
  }

  /** Posts `body` to our inbound URL signed with the account's app secret, as the platform delivers. */
  async deliver(url: string, account: A, body: unknown, headers: Record<string, string> = {}) {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    return deliverWebhook(url, raw, { 'x-hub-signature-256': signHub(account.appSecret, raw), ...headers });
  }

  /** The platform's GET subscription check against our inbound URL. */
  async verifyCallback(url: string, verifyToken: string, challenge = fakeId(10)) {
    const target = new URL(url);
    target.searchParams.set('hub.mode', 'subscribe');
    target.searchParams.set('hub.verify_token', verifyToken);
    target.searchParams.set('hub.challenge', challenge);
    const response = await fetch(target);
    return { status: response.status, text: await response.text(), challenge };
  }

  private dialog(request: RecordedRequest): FakeAnswer {
    const redirectUri = request.query.get('redirect_uri');
    const state = request.query.get('state') ?? '';
    const account = this.consenting;
    if (!redirectUri || !request.query.get('client_id'))
      return graphError(400, 100, 'Invalid redirect_uri or client_id');
    const back = new URL(redirectUri);
    if (!account) {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_reason', 'user_denied');
    } else {
      const code = fakeToken('code-');
      this.codes.set(code, { account, redirectUri });
      back.searchParams.set('code', code);
    }
    back.searchParams.set('state', state);
    return { status: 302, body: '', headers: { location: back.toString() } };
  }

  private exchange(request: RecordedRequest): FakeAnswer {
    const code = request.query.get('code');
    if (code) {
      const grant = this.codes.get(code);
      this.codes.delete(code); // a code is good once
      if (!grant) return graphError(400, 100, 'This authorization code has been used.', { error_subcode: 36009 });
      const { account, redirectUri } = grant;
      if (
        request.query.get('client_id') !== account.appId ||
        request.query.get('client_secret') !== account.appSecret
      ) {
        return graphError(400, 1, 'Error validating client secret.');
      }
      if ((request.query.get('redirect_uri') ?? '') !== redirectUri) {
        return graphError(
          400,
          100,
          'Error validating verification code. Please make sure your redirect_uri is identical',
        );
      }
      return this.issueUserToken(account, false);
    }
    if (request.query.get('grant_type') === 'fb_exchange_token') {
      const account = this.userTokens.get(request.query.get('fb_exchange_token') ?? '');
      if (!account || request.query.get('client_secret') !== account.appSecret) {
        return graphError(400, 190, 'Invalid OAuth access token.');
      }
      return this.issueUserToken(account, true);
    }
    return graphError(400, 100, 'Missing authorization code');
  }

  /** Short-lived (the code's, about an hour) or long-lived (`fb_exchange_token`, about 60 days), told apart by prefix. */
  protected issueUserToken(account: A, longLived: boolean): FakeAnswer {
    const token = fakeToken(longLived ? 'EAAuserLong' : 'EAAuserShort');
    this.userTokens.set(token, account);
    if (longLived) this.longLivedUserTokens.add(token);
    return { status: 200, body: { access_token: token, token_type: 'bearer', expires_in: longLived ? 5183944 : 3600 } };
  }
}
