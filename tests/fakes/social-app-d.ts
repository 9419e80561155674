import type { FakeAnswer, RecordedRequest } from './fake-platform';
import { fakeId, fakeSecret, fakeToken, graphError, GraphFakePlatform } from './graph-platform';

/** One page at the fake, its app, and what was done to them. */
export interface SocialAppDPage {
  appId: string;
  appSecret: string;
  pageId: string;
  pageAccessToken: string;
  name: string;
  /** The app's page webhook (`POST /<APP_ID>/subscriptions`). */
  appSubscription?: { callbackUrl: string; verifyToken: string; fields: string };
  /** Page tokens `/me/accounts` minted for a short-lived user token: they work, but expire within hours. */
  shortLivedPageTokens?: string[];
  /** `POST /<PAGE_ID>/subscribed_apps` fields (undefined: not subscribed). */
  subscribedFields?: string;
}

export interface SocialAppDSent {
  id: string;
  pageId: string;
  body: Record<string, unknown>;
}

/**
 * A Messenger Platform-shaped fake (SOCIAL_APP_D): pages, the Send API, app and page webhook subscriptions, CDN
 * attachment URLs, Facebook Login's code exchange and `/me/accounts`; and helpers that build and sign webhook bodies
 * (messages, postbacks, deliveries, reads) as the platform sends them.
 */
export class FakeSocialAppD extends GraphFakePlatform<SocialAppDPage> {
  readonly pages: SocialAppDPage[] = [];
  readonly sent: SocialAppDSent[] = [];
  /** Files behind attachment URLs: name → mime type and bytes. */
  readonly files = new Map<string, { mimeType: string; bytes: string }>();
  private readonly appId = fakeId();
  private readonly appSecret = fakeSecret();

  constructor() {
    super();
    this.route('GET', /^\/cdn\/\w+$/, (r) => this.file(r));
    this.route('GET', /^\/me\/accounts$/, (r) => this.accounts(r));
    this.route('POST', /^\/\d+\/subscriptions$/, (r) => this.appSubscribe(r));
    this.route('POST', /^\/\d+\/subscribed_apps$/, (r) => this.withPage(r, (page) => this.pageSubscribe(page, r)));
    this.route('DELETE', /^\/\d+\/subscribed_apps$/, (r) =>
      this.withPage(r, (page) => {
        delete page.subscribedFields;
        return { status: 200, body: { success: true } };
      }),
    );
    this.route('POST', /^\/(\d+|me)\/messages$/, (r) => this.withPage(r, (page) => this.message(page, r)));
    this.route('GET', /^\/(\d+|me)$/, (r) =>
      this.withPage(r, (page) => ({ status: 200, body: { id: page.pageId, name: page.name } })),
    );
  }

  /** A new page of the fake's app with its page token. */
  page(overrides: Partial<SocialAppDPage> = {}): SocialAppDPage {
    const page: SocialAppDPage = {
      appId: this.appId,
      appSecret: this.appSecret,
      pageId: fakeId(),
      pageAccessToken: fakeToken('EAApage'),
      name: `Fake Page ${fakeId(4)}`,
      ...overrides,
    };
    this.pages.push(page);
    return page;
  }

  /** The credentials a caller gives `connectSocialAppDChannel` for `page`. */
  static credentials(page: SocialAppDPage): Record<string, string> {
    return { pageAccessToken: page.pageAccessToken, pageId: page.pageId, appId: page.appId, appSecret: page.appSecret };
  }

  get app(): { appId: string; appSecret: string } {
    return { appId: this.appId, appSecret: this.appSecret };
  }

  protected accountOfToken(token: string): SocialAppDPage | undefined {
    return this.pages.find((p) => p.pageAccessToken === token || p.shortLivedPageTokens?.includes(token));
  }

  // ---- webhook bodies, as the platform builds them ----

  /** `{object: "page", entry: [{id, time, messaging}]}` around the given messaging events. */
  webhook(page: SocialAppDPage, messaging: Record<string, unknown>[]): Record<string, unknown> {
    return { object: 'page', entry: [{ id: page.pageId, time: Date.now(), messaging }] };
  }

  /** One messaging event from `psid` to the page. */
  event(
    page: SocialAppDPage,
    psid: string,
    part: Record<string, unknown>,
    timestamp = Date.now(),
  ): Record<string, unknown> {
    return { sender: { id: psid }, recipient: { id: page.pageId }, timestamp, ...part };
  }

  text(page: SocialAppDPage, psid: string, text: string, mid = `m_${fakeToken('')}`): Record<string, unknown> {
    return this.event(page, psid, { message: { mid, text } });
  }

  /** A file the user "sent": its CDN URL, served by the fake. */
  userFile(mimeType: string): string {
    const name = fakeToken('f').replace(/[^\w]/g, '');
    this.files.set(name, { mimeType, bytes: `fake-file-${name}` });
    return `${this.url}/cdn/${name}`;
  }

  fileBytes(url: string): string | undefined {
    return this.files.get(url.split('/').pop()!)?.bytes;
  }

  delivery(page: SocialAppDPage, psid: string, watermark: number, mids?: string[]): Record<string, unknown> {
    return this.event(page, psid, { delivery: { ...(mids ? { mids } : {}), watermark } });
  }

  read(page: SocialAppDPage, psid: string, watermark: number): Record<string, unknown> {
    return this.event(page, psid, { read: { watermark } });
  }

  postback(
    page: SocialAppDPage,
    psid: string,
    title: string,
    payload: string,
    mid = `m_${fakeToken('')}`,
  ): Record<string, unknown> {
    return this.event(page, psid, { postback: { mid, title, payload } });
  }

  sentTo(psid: string): SocialAppDSent[] {
    return this.sent.filter((m) => (m.body.recipient as { id?: string } | undefined)?.id === psid);
  }

  // ---- routes ----

  private withPage(request: RecordedRequest, handle: (page: SocialAppDPage) => FakeAnswer): FakeAnswer {
    const caller = this.authorise(request);
    if (GraphFakePlatform.refused(caller)) return caller;
    const id = request.path.split('/')[1];
    if (id !== 'me' && caller.account.pageId !== id) {
      return graphError(400, 100, `Unsupported get request. Object with ID '${id}' does not exist`, {
        error_subcode: 33,
      });
    }
    return handle(caller.account);
  }

  private appSubscribe(request: RecordedRequest): FakeAnswer {
    const appId = request.path.split('/')[1];
    if (request.headers.authorization !== `Bearer ${appId}|${this.appSecret}` || appId !== this.appId) {
      return graphError(400, 190, 'Invalid OAuth access token signature.');
    }
    const body = (request.json ?? {}) as {
      object?: string;
      callback_url?: string;
      verify_token?: string;
      fields?: string;
    };
    if (body.object !== 'page' || !body.callback_url || !body.verify_token) {
      return graphError(400, 100, 'object, callback_url and verify_token are required');
    }
    for (const page of this.pages.filter((p) => p.appId === appId)) {
      page.appSubscription = {
        callbackUrl: body.callback_url,
        verifyToken: body.verify_token,
        fields: body.fields ?? '',
      };
    }
    return { status: 200, body: { success: true } };
  }

  private pageSubscribe(page: SocialAppDPage, request: RecordedRequest): FakeAnswer {
    const fields = (request.json as { subscribed_fields?: string } | undefined)?.subscribed_fields;
    if (!fields) return graphError(400, 100, 'subscribed_fields is required');
    page.subscribedFields = fields;
    return { status: 200, body: { success: true } };
  }

  private message(page: SocialAppDPage, request: RecordedRequest): FakeAnswer {
    const body = (request.json ?? {}) as Record<string, unknown>;
    const recipient = body.recipient as { id?: string } | undefined;
    if (!recipient?.id) return graphError(400, 100, '(#100) The parameter recipient is required');
    if (!['RESPONSE', 'UPDATE', 'MESSAGE_TAG'].includes(String(body.messaging_type))) {
      return graphError(400, 100, '(#100) messaging_type is required');
    }
    const message = body.message as Record<string, unknown> | undefined;
    if (!message || (!message.text && !message.attachment))
      return graphError(400, 100, '(#100) Must send either message or state');
    const id = `m_${fakeToken('')}`;
    this.sent.push({ id, pageId: page.pageId, body });
    return { status: 200, body: { recipient_id: recipient.id, message_id: id } };
  }

  private file(request: RecordedRequest): FakeAnswer {
    const file = this.files.get(request.path.split('/').pop()!);
    if (!file) return { status: 404, body: '' };
    return { status: 200, body: file.bytes, headers: { 'content-type': file.mimeType } };
  }

  /**
   * The pages the user token may manage, each with its page token (what hosted connect lists). As the platform: read
   * with a long-lived user token the page token does not expire (`pageAccessToken`); with a short-lived one it is a
   * short-lived page token of its own.
   */
  private accounts(request: RecordedRequest): FakeAnswer {
    const caller = this.authorise(request);
    if (GraphFakePlatform.refused(caller)) return caller;
    const page = caller.account;
    let pageToken = page.pageAccessToken;
    if (this.userTokens.has(caller.token) && !this.longLivedUserTokens.has(caller.token)) {
      pageToken = fakeToken('EAApageShort');
      (page.shortLivedPageTokens ??= []).push(pageToken);
    }
    return {
      status: 200,
      body: { data: [{ id: page.pageId, name: page.name, access_token: pageToken, tasks: ['MESSAGING', 'MODERATE'] }] },
    };
  }
}
