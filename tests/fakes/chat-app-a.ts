import type { FakeAnswer, RecordedRequest } from './fake-platform';
import { fakeId, fakeSecret, fakeToken, graphError, GraphFakePlatform } from './graph-platform';

/** One business account with one phone number at the fake, and what was done to it. */
export interface ChatAppAAccount {
  appId: string;
  appSecret: string;
  accessToken: string;
  phoneNumberId: string;
  businessAccountId: string;
  displayPhoneNumber: string;
  verifiedName: string;
  /** The last `POST /<WABA_ID>/subscribed_apps` (undefined: not subscribed). */
  subscription?: { overrideCallbackUri?: string; verifyToken?: string };
  templates: FakeTemplate[];
}

/** A message template as the platform keeps it. */
export interface FakeTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
}

/** What the fake accepted on `POST /<PHONE_NUMBER_ID>/messages`. */
export interface ChatAppASent {
  id: string;
  phoneNumberId: string;
  body: Record<string, unknown>;
}

const MEDIA_BYTES = 'fake-media-bytes';

/**
 * A WhatsApp Business Cloud API-shaped fake (CHAT_APP_A): numbers, messages, media, webhook subscription, templates,
 * Embedded Signup's code exchange and `debug_token`; and helpers that build and sign webhook bodies as the platform
 * sends them.
 */
export class FakeChatAppA extends GraphFakePlatform<ChatAppAAccount> {
  readonly accounts: ChatAppAAccount[] = [];
  readonly sent: ChatAppASent[] = [];
  /** Media the platform holds for inbound messages: id → mime type. */
  readonly media = new Map<string, { mimeType: string; bytes: string }>();
  private readonly appId = fakeId();
  private readonly appSecret = fakeSecret();

  constructor() {
    super();
    this.route('GET', /^\/debug_token$/, (r) => this.debugToken(r));
    this.route('GET', /^\/media-download\/\w+$/, (r) => this.download(r));
    this.route('GET', /^\/\d+\/phone_numbers$/, (r) => this.withWaba(r, (account) => this.phoneNumbers(account)));
    this.route('POST', /^\/\d+\/subscribed_apps$/, (r) => this.withWaba(r, (account) => this.subscribe(account, r)));
    this.route('DELETE', /^\/\d+\/subscribed_apps$/, (r) =>
      this.withWaba(r, (account) => {
        delete account.subscription;
        return { status: 200, body: { success: true } };
      }),
    );
    this.route('GET', /^\/\d+\/subscribed_apps$/, (r) =>
      this.withWaba(r, (account) => ({
        status: 200,
        body: {
          data: account.subscription
            ? [
                {
                  whatsapp_business_api_data: { id: account.appId, name: 'svc-inbox' },
                  override_callback_uri: account.subscription.overrideCallbackUri,
                },
              ]
            : [],
        },
      })),
    );
    this.route('GET', /^\/\d+\/message_templates$/, (r) =>
      this.withWaba(r, (account) => this.listTemplates(account, r)),
    );
    this.route('POST', /^\/\d+\/message_templates$/, (r) =>
      this.withWaba(r, (account) => this.createTemplate(account, r)),
    );
    this.route('DELETE', /^\/\d+\/message_templates$/, (r) =>
      this.withWaba(r, (account) => this.deleteTemplate(account, r)),
    );
    this.route('POST', /^\/\d+\/messages$/, (r) => this.withNumber(r, (account) => this.message(account, r)));
    this.route('GET', /^\/\d+$/, (r) => this.getObject(r));
    this.route('POST', /^\/\d+$/, (r) => this.editTemplate(r));
  }

  /** A new business account with one number, its system-user token and the app's secret (what a caller connects with). */
  account(overrides: Partial<ChatAppAAccount> = {}): ChatAppAAccount {
    const account: ChatAppAAccount = {
      appId: this.appId,
      appSecret: this.appSecret,
      accessToken: fakeToken('EAAsystem'),
      phoneNumberId: fakeId(),
      businessAccountId: fakeId(),
      displayPhoneNumber: `+1 555 ${fakeId(3)} ${fakeId(4)}`,
      verifiedName: 'Fake Business',
      templates: [],
      ...overrides,
    };
    this.accounts.push(account);
    return account;
  }

  /** The credentials a caller gives `connectChatAppAChannel` for `account`. */
  static credentials(account: ChatAppAAccount): Record<string, string> {
    return {
      accessToken: account.accessToken,
      phoneNumberId: account.phoneNumberId,
      businessAccountId: account.businessAccountId,
      appSecret: account.appSecret,
    };
  }

  /** The app hosted connect uses (Embedded Signup): its id and secret. */
  get app(): { appId: string; appSecret: string } {
    return { appId: this.appId, appSecret: this.appSecret };
  }

  protected accountOfToken(token: string): ChatAppAAccount | undefined {
    return this.accounts.find((a) => a.accessToken === token);
  }

  // ---- webhook bodies, as the platform builds them ----

  /** A `messages` change carrying `messages` from users (with their profile names) and/or `statuses`. */
  messagesWebhook(
    account: ChatAppAAccount,
    value: {
      messages?: Record<string, unknown>[];
      statuses?: Record<string, unknown>[];
      names?: Record<string, string>;
    },
  ): Record<string, unknown> {
    const senders = [...new Set((value.messages ?? []).map((m) => String(m.from)))];
    return this.envelope(account, 'messages', {
      messaging_product: 'whatsapp',
      metadata: {
        display_phone_number: account.displayPhoneNumber.replace(/\D/g, ''),
        phone_number_id: account.phoneNumberId,
      },
      ...(senders.length
        ? { contacts: senders.map((waId) => ({ profile: { name: value.names?.[waId] ?? 'Fake User' }, wa_id: waId })) }
        : {}),
      ...(value.messages ? { messages: value.messages } : {}),
      ...(value.statuses ? { statuses: value.statuses } : {}),
    });
  }

  /** One inbound message of `type` with its `type` object (`{text: {body}}`, `{image: {id, mime_type}}`, …). */
  inboundMessage(
    from: string,
    type: string,
    part: unknown,
    extra: { id?: string; context?: { from: string; id: string }; timestamp?: number } = {},
  ): Record<string, unknown> {
    return {
      from,
      id: extra.id ?? `wamid.${fakeToken('')}`,
      timestamp: String(extra.timestamp ?? Math.floor(Date.now() / 1000)),
      type,
      ...(extra.context ? { context: extra.context } : {}),
      ...(type === 'unsupported' ? { errors: [{ code: 131051, title: 'Message type unknown' }] } : { [type]: part }),
    };
  }

  /** Registers media the user "sent", answers the `{id, mime_type}` object to put in a message. */
  userMedia(mimeType: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    const id = fakeId();
    this.media.set(id, { mimeType, bytes: `${MEDIA_BYTES}-${id}` });
    return { id, mime_type: mimeType, sha256: 'fake', ...extra };
  }

  /** A status callback about a message we sent; `failed` with the platform's error object. */
  status(
    messageId: string,
    status: 'sent' | 'delivered' | 'read' | 'failed',
    recipient: string,
    error?: { code: number; title: string; details?: string },
  ): Record<string, unknown> {
    return {
      id: messageId,
      status,
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: recipient,
      ...(error
        ? {
            errors: [
              {
                code: error.code,
                title: error.title,
                message: error.title,
                error_data: { details: error.details ?? error.title },
              },
            ],
          }
        : {}),
    };
  }

  /** The `message_template_status_update` change. */
  templateStatusWebhook(
    account: ChatAppAAccount,
    template: { id: string; name: string; language: string },
    event: string,
    reason = 'NONE',
  ): Record<string, unknown> {
    return this.envelope(account, 'message_template_status_update', {
      event,
      message_template_id: Number(template.id),
      message_template_name: template.name,
      message_template_language: template.language,
      reason,
    });
  }

  /** Delivers status callbacks one webhook each, in the order given (out of order when the test says so). */
  async deliverStatuses(url: string, account: ChatAppAAccount, statuses: Record<string, unknown>[]) {
    const answers = [];
    for (const status of statuses)
      answers.push(await this.deliver(url, account, this.messagesWebhook(account, { statuses: [status] })));
    return answers;
  }

  /** The bytes the fake serves for a media id (to compare with what was stored). */
  mediaBytes(id: string): string | undefined {
    return this.media.get(id)?.bytes;
  }

  /** Every message sent to `to`, in order. */
  sentTo(to: string): ChatAppASent[] {
    return this.sent.filter((m) => m.body.to === to);
  }

  /** Moves a template to `status` at the platform (what the review does), without telling anyone. */
  setTemplateStatus(account: ChatAppAAccount, templateId: string, status: string): FakeTemplate {
    const template = account.templates.find((t) => t.id === templateId);
    if (!template) throw new Error(`fake: no template ${templateId}`);
    template.status = status;
    return template;
  }

  private envelope(account: ChatAppAAccount, field: string, value: Record<string, unknown>): Record<string, unknown> {
    return {
      object: 'whatsapp_business_account',
      entry: [{ id: account.businessAccountId, changes: [{ value, field }] }],
    };
  }

  // ---- routes ----

  private withWaba(request: RecordedRequest, handle: (account: ChatAppAAccount) => FakeAnswer): FakeAnswer {
    const caller = this.authorise(request);
    if (GraphFakePlatform.refused(caller)) return caller;
    const waba = request.path.split('/')[1];
    if (caller.account.businessAccountId !== waba) return unknownObject(waba);
    return handle(caller.account);
  }

  private withNumber(request: RecordedRequest, handle: (account: ChatAppAAccount) => FakeAnswer): FakeAnswer {
    const caller = this.authorise(request);
    if (GraphFakePlatform.refused(caller)) return caller;
    const number = request.path.split('/')[1];
    if (caller.account.phoneNumberId !== number) return unknownObject(number);
    return handle(caller.account);
  }

  private getObject(request: RecordedRequest): FakeAnswer {
    const caller = this.authorise(request);
    if (GraphFakePlatform.refused(caller)) return caller;
    const id = request.path.slice(1);
    const account = caller.account;
    if (account.phoneNumberId === id) {
      return {
        status: 200,
        body: {
          id,
          display_phone_number: account.displayPhoneNumber,
          verified_name: account.verifiedName,
          quality_rating: 'GREEN',
        },
      };
    }
    const media = this.media.get(id);
    if (media) {
      return {
        status: 200,
        body: {
          messaging_product: 'whatsapp',
          url: `${this.url}/media-download/${id}`,
          mime_type: media.mimeType,
          sha256: 'fake',
          file_size: media.bytes.length,
          id,
        },
      };
    }
    const template = account.templates.find((t) => t.id === id);
    if (template) return { status: 200, body: template };
    return unknownObject(id);
  }

  private download(request: RecordedRequest): FakeAnswer {
    const caller = this.authorise(request);
    if (GraphFakePlatform.refused(caller)) return caller;
    const media = this.media.get(request.path.split('/').pop()!);
    if (!media) return { status: 404, body: '' };
    return { status: 200, body: media.bytes, headers: { 'content-type': media.mimeType } };
  }

  private phoneNumbers(account: ChatAppAAccount): FakeAnswer {
    const numbers = this.accounts.filter((a) => a.businessAccountId === account.businessAccountId);
    return {
      status: 200,
      body: {
        data: numbers.map((a) => ({
          id: a.phoneNumberId,
          display_phone_number: a.displayPhoneNumber,
          verified_name: a.verifiedName,
          quality_rating: 'GREEN',
        })),
      },
    };
  }

  private subscribe(account: ChatAppAAccount, request: RecordedRequest): FakeAnswer {
    const body = (request.json ?? {}) as { override_callback_uri?: string; verify_token?: string };
    if (body.override_callback_uri && !body.verify_token)
      return graphError(400, 100, 'verify_token is required with override_callback_uri');
    if (body.override_callback_uri && body.override_callback_uri.length > 200)
      return graphError(400, 100, 'override_callback_uri is longer than 200 characters');
    account.subscription = { overrideCallbackUri: body.override_callback_uri, verifyToken: body.verify_token };
    return { status: 200, body: { success: true } };
  }

  private message(account: ChatAppAAccount, request: RecordedRequest): FakeAnswer {
    const body = request.json as Record<string, unknown> | undefined;
    if (!body || body.messaging_product !== 'whatsapp')
      return graphError(400, 100, 'The parameter messaging_product is required.');
    if (body.status === 'read') return { status: 200, body: { success: true } };
    const type = String(body.type ?? 'text');
    if (!body.to) return graphError(400, 100, 'The parameter to is required.');
    if (!(type in body)) return graphError(400, 100, `Param ${type} is required`);
    if (type === 'template') {
      const template = body.template as { name?: string; language?: { code?: string } };
      const known = account.templates.find((t) => t.name === template.name && t.language === template.language?.code);
      if (!known) return graphError(404, 132001, 'Template name does not exist in the translation');
      if (known.status !== 'APPROVED') return graphError(400, 132015, 'Template is paused');
    }
    const id = `wamid.${fakeToken('')}`;
    this.sent.push({ id, phoneNumberId: account.phoneNumberId, body });
    return {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] },
    };
  }

  private listTemplates(account: ChatAppAAccount, request: RecordedRequest): FakeAnswer {
    const limit = Number(request.query.get('limit') ?? 25);
    const after = Number(request.query.get('after') ?? 0);
    const page = account.templates.slice(after, after + limit);
    const next = after + limit < account.templates.length ? String(after + limit) : undefined;
    return {
      status: 200,
      body: {
        data: page,
        paging: {
          cursors: { before: String(after), after: String(after + page.length) },
          ...(next ? { next: `${this.url}${request.path}?after=${next}&limit=${limit}` } : {}),
        },
      },
    };
  }

  private createTemplate(account: ChatAppAAccount, request: RecordedRequest): FakeAnswer {
    const body = (request.json ?? {}) as {
      name?: string;
      language?: string;
      category?: string;
      components?: unknown[];
    };
    if (!body.name || !/^[a-z0-9_]{1,512}$/.test(body.name)) return graphError(400, 100, 'Invalid parameter: name');
    if (!body.language) return graphError(400, 100, 'Invalid parameter: language');
    if (!['MARKETING', 'UTILITY', 'AUTHENTICATION'].includes(body.category ?? ''))
      return graphError(400, 100, 'Invalid parameter: category');
    if (!Array.isArray(body.components) || body.components.length === 0)
      return graphError(400, 100, 'Invalid parameter: components');
    if (account.templates.some((t) => t.name === body.name && t.language === body.language)) {
      return graphError(400, 100, 'Message template already exists', { error_subcode: 2388024 });
    }
    const template: FakeTemplate = {
      id: fakeId(),
      name: body.name,
      language: body.language,
      category: body.category!,
      status: 'PENDING',
      components: body.components,
    };
    account.templates.push(template);
    return { status: 200, body: { id: template.id, status: template.status, category: template.category } };
  }

  private editTemplate(request: RecordedRequest): FakeAnswer {
    const caller = this.authorise(request);
    if (GraphFakePlatform.refused(caller)) return caller;
    const template = caller.account.templates.find((t) => t.id === request.path.slice(1));
    if (!template) return unknownObject(request.path.slice(1));
    const body = (request.json ?? {}) as { components?: unknown[]; category?: string };
    if (body.components) template.components = body.components;
    if (body.category) template.category = body.category;
    template.status = 'PENDING';
    return { status: 200, body: { success: true } };
  }

  private deleteTemplate(account: ChatAppAAccount, request: RecordedRequest): FakeAnswer {
    const name = request.query.get('name');
    const hsmId = request.query.get('hsm_id');
    const before = account.templates.length;
    const kept = account.templates.filter((t) => !(t.name === name && (!hsmId || t.id === hsmId)));
    if (kept.length === before) return graphError(404, 100, 'Message template not found');
    account.templates.splice(0, account.templates.length, ...kept);
    return { status: 200, body: { success: true } };
  }

  /** Embedded Signup: the token's granted business accounts, as `debug_token` tells them. */
  private debugToken(request: RecordedRequest): FakeAnswer {
    const header = request.headers.authorization ?? '';
    if (header !== `Bearer ${this.appId}|${this.appSecret}`) return graphError(400, 190, 'Invalid OAuth access token');
    const input = request.query.get('input_token') ?? '';
    const account = this.userTokens.get(input);
    if (!account) return { status: 200, body: { data: { is_valid: false, app_id: this.appId } } };
    return {
      status: 200,
      body: {
        data: {
          app_id: this.appId,
          type: 'USER',
          is_valid: true,
          scopes: ['whatsapp_business_management', 'whatsapp_business_messaging'],
          granular_scopes: [
            { scope: 'whatsapp_business_management', target_ids: [account.businessAccountId] },
            { scope: 'whatsapp_business_messaging', target_ids: [account.businessAccountId] },
          ],
        },
      },
    };
  }
}

function unknownObject(id: string | undefined): FakeAnswer {
  return graphError(
    400,
    100,
    `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
    { error_subcode: 33 },
  );
}
