import { randomBytes } from 'node:crypto';
import { FakePlatform, deliverWebhook, type FakeAnswer, type RecordedRequest } from './fake-platform';

/**
 * A local stand-in for the Telegram Bot API (core.telegram.org/bots/api): `POST /bot<token>/<method>` answering
 * `{ok:true, result}` or `{ok:false, error_code, description, parameters?}`, `GET /file/bot<token>/<path>` for
 * downloads, one webhook per bot set by `setWebhook` with its `secret_token`, which `deliverUpdate` presents in
 * `X-Telegram-Bot-Api-Secret-Token` as Telegram does. Bot settings (`setMy*` / `getMy*`, menu button, default
 * administrator rights) are kept per bot, per scope and language, so a read shows what a write did.
 */
export interface FakeBot {
  token: string;
  id: number;
  username: string;
  firstName: string;
  webhook?: { url: string; secretToken?: string; allowedUpdates?: string[] };
  /** `<setting>|<scope JSON>|<language>` → value. */
  settings: Map<string, unknown>;
  files: Map<string, { path: string; bytes: string; mimeType: string }>;
  nextMessageId: number;
}

export interface TelegramUserShape {
  id: number;
  is_bot: false;
  first_name: string;
  last_name?: string;
  username?: string;
}

type Params = Record<string, unknown>;

export class FakeChatAppB extends FakePlatform {
  readonly bots = new Map<string, FakeBot>();
  private nextUpdateId = 1;
  private nextBotId = 7_000_000_001;

  constructor() {
    super();
    this.route('POST', /^\/bot[^/]+\/\w+$/, (request) => this.method(request));
    this.route('GET', /^\/file\/bot[^/]+\/.+$/, (request) => this.file(request));
  }

  /** The base URL the adapter is given (CHAT_APP_B_API_URL). */
  get apiUrl(): string {
    return this.url;
  }

  /** A bot @BotFather would have made: its token connects a channel. */
  addBot(username = `svc_test_${randomBytes(3).toString('hex')}_bot`): FakeBot {
    const id = this.nextBotId++;
    const bot: FakeBot = {
      token: `${id}:AA${randomBytes(24).toString('base64url')}`,
      id,
      username,
      firstName: 'Support',
      settings: new Map(),
      files: new Map(),
      nextMessageId: 100,
    };
    this.bots.set(bot.token, bot);
    return bot;
  }

  /** Calls of one method by one bot, their JSON bodies in arrival order. */
  calls(bot: FakeBot, method: string): Params[] {
    return this.received('POST', new RegExp(`^/bot${escape(bot.token)}/${method}$`)).map(
      (r) => (r.json ?? {}) as Params,
    );
  }

  /** A file a user sent: `getFile` resolves its id, `/file/bot<token>/<path>` serves its bytes. */
  addFile(bot: FakeBot, bytes: string, mimeType: string, fileName = 'file.bin'): string {
    const fileId = `file_${randomBytes(8).toString('hex')}`;
    bot.files.set(fileId, { path: `documents/${fileName}`, bytes, mimeType });
    return fileId;
  }

  /** Answers `error_code`/`description` (and `retry_after`) to the next `times` calls of `method`. */
  failMethod(
    method: string,
    errorCode: number,
    description: string,
    options: { retryAfter?: number; times?: number } = {},
  ): void {
    this.failNext(
      (r) => r.method === 'POST' && r.path.endsWith(`/${method}`),
      telegramError(errorCode, description, options.retryAfter),
      options.times ?? 1,
    );
  }

  // ---- inbound: Updates as Telegram builds them ----

  user(overrides: Partial<TelegramUserShape> = {}): TelegramUserShape {
    return {
      id: 500_000_000 + Math.floor(Math.random() * 1e8),
      is_bot: false,
      first_name: 'Ada',
      last_name: 'Lovelace',
      username: 'ada',
      ...overrides,
    };
  }

  /** An Update carrying a private-chat `message` (or `edited_message`) from `from` with the given fields. */
  messageUpdate(
    bot: FakeBot,
    from: TelegramUserShape,
    fields: Params,
    options: { edited?: boolean; messageId?: number } = {},
  ): Params {
    const message = {
      message_id: options.messageId ?? bot.nextMessageId++,
      from,
      chat: { id: from.id, first_name: from.first_name, type: 'private' },
      date: Math.floor(Date.now() / 1000) - 5,
      ...(options.edited ? { edit_date: Math.floor(Date.now() / 1000) } : {}),
      ...fields,
    };
    return { update_id: this.nextUpdateId++, [options.edited ? 'edited_message' : 'message']: message };
  }

  textUpdate(bot: FakeBot, from: TelegramUserShape, text: string): Params {
    return this.messageUpdate(bot, from, { text });
  }

  /** A tap on an inline button of a message the bot sent with `reply_markup`. */
  callbackUpdate(
    bot: FakeBot,
    from: TelegramUserShape,
    sent: { message_id: number; text: string; reply_markup: unknown },
    data: string,
  ): Params {
    return {
      update_id: this.nextUpdateId++,
      callback_query: {
        id: String(4_000_000_000_000 + this.nextUpdateId),
        from,
        chat_instance: '-1234567890',
        data,
        message: {
          message_id: sent.message_id,
          from: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
          chat: { id: from.id, type: 'private' },
          date: Math.floor(Date.now() / 1000) - 30,
          text: sent.text,
          reply_markup: sent.reply_markup,
        },
      },
    };
  }

  /** Posts an Update to the bot's webhook with the secret it set (or `secretToken` to test a wrong one, null: none). */
  async deliverUpdate(
    bot: FakeBot,
    update: Params,
    options: { secretToken?: string | null } = {},
  ): Promise<{ status: number; text: string }> {
    if (!bot.webhook) throw new Error(`fake: bot ${bot.username} has no webhook`);
    const secret = options.secretToken === undefined ? bot.webhook.secretToken : options.secretToken;
    return deliverWebhook(
      bot.webhook.url,
      JSON.stringify(update),
      secret ? { 'x-telegram-bot-api-secret-token': secret } : {},
    );
  }

  // ---- the Bot API ----

  private method(request: RecordedRequest): FakeAnswer {
    const [, tokenPart, method] = /^\/bot([^/]+)\/(\w+)$/.exec(request.path) ?? [];
    const bot = this.bots.get(tokenPart ?? '');
    if (!bot) return telegramError(401, 'Unauthorized');
    const params = (request.json ?? Object.fromEntries(request.query)) as Params;
    const handler = this.methods[method ?? ''];
    return handler ? handler(bot, params) : telegramError(404, 'Not Found: method not found');
  }

  private readonly methods: Record<string, (bot: FakeBot, params: Params) => FakeAnswer> = {
    getMe: (bot) =>
      ok({
        id: bot.id,
        is_bot: true,
        first_name: bot.firstName,
        username: bot.username,
        can_join_groups: true,
        can_read_all_group_messages: false,
        supports_inline_queries: false,
      }),
    setWebhook: (bot, params) => {
      const url = String(params['url'] ?? '');
      const secret = params['secret_token'] as string | undefined;
      if (secret !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(secret))
        return telegramError(400, 'Bad Request: secret token contains unallowed characters');
      if (url && !/^https?:\/\//.test(url))
        return telegramError(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
      bot.webhook = url
        ? {
            url,
            ...(secret ? { secretToken: secret } : {}),
            ...(params['allowed_updates'] ? { allowedUpdates: params['allowed_updates'] as string[] } : {}),
          }
        : undefined;
      return ok(true, url ? 'Webhook was set' : 'Webhook was deleted');
    },
    deleteWebhook: (bot) => {
      const had = !!bot.webhook;
      bot.webhook = undefined;
      return ok(true, had ? 'Webhook was deleted' : 'Webhook is already deleted');
    },
    getWebhookInfo: (bot) =>
      ok({
        url: bot.webhook?.url ?? '',
        has_custom_certificate: false,
        pending_update_count: 0,
        allowed_updates: bot.webhook?.allowedUpdates,
      }),
    getFile: (bot, params) => {
      const file = bot.files.get(String(params['file_id']));
      if (!file) return telegramError(400, 'Bad Request: invalid file_id');
      return ok({
        file_id: params['file_id'],
        file_unique_id: 'u' + String(params['file_id']),
        file_size: file.bytes.length,
        file_path: file.path,
      });
    },
    sendMessage: (bot, params) =>
      this.sent(bot, params, { text: params['text'], reply_markup: params['reply_markup'] }),
    sendPhoto: (bot, params) =>
      this.sent(bot, params, {
        photo: [{ file_id: 'p1', file_unique_id: 'p1', width: 90, height: 90 }],
        caption: params['caption'],
      }),
    sendDocument: (bot, params) =>
      this.sent(bot, params, { document: { file_id: 'd1', file_unique_id: 'd1' }, caption: params['caption'] }),
    sendVideo: (bot, params) =>
      this.sent(bot, params, { video: { file_id: 'v1', file_unique_id: 'v1' }, caption: params['caption'] }),
    sendAudio: (bot, params) =>
      this.sent(bot, params, { audio: { file_id: 'a1', file_unique_id: 'a1' }, caption: params['caption'] }),
    sendLocation: (bot, params) =>
      this.sent(bot, params, { location: { latitude: params['latitude'], longitude: params['longitude'] } }),
    sendVenue: (bot, params) =>
      this.sent(bot, params, { venue: { title: params['title'], address: params['address'] } }),
    sendContact: (bot, params) =>
      this.sent(bot, params, { contact: { phone_number: params['phone_number'], first_name: params['first_name'] } }),
    answerCallbackQuery: () => ok(true),
    // Bot settings (core.telegram.org/bots/api#setmyname and neighbours).
    setMyName: (bot, params) => this.setting(bot, 'name', params, 'name', 64),
    getMyName: (bot, params) => ok({ name: this.read(bot, 'name', params) ?? bot.firstName }),
    setMyDescription: (bot, params) => this.setting(bot, 'description', params, 'description', 512),
    getMyDescription: (bot, params) => ok({ description: this.read(bot, 'description', params) ?? '' }),
    setMyShortDescription: (bot, params) => this.setting(bot, 'short_description', params, 'short_description', 120),
    getMyShortDescription: (bot, params) =>
      ok({ short_description: this.read(bot, 'short_description', params) ?? '' }),
    setMyCommands: (bot, params) => {
      const commands = params['commands'] as { command: string; description: string }[] | undefined;
      if (!Array.isArray(commands) || commands.length > 100)
        return telegramError(400, 'Bad Request: too many commands');
      if (commands.some((c) => !/^[a-z0-9_]{1,32}$/.test(c.command)))
        return telegramError(400, 'Bad Request: BOT_COMMAND_INVALID');
      if (commands.some((c) => !c.description || c.description.length > 256))
        return telegramError(400, 'Bad Request: BOT_COMMAND_DESCRIPTION_INVALID');
      bot.settings.set(key('commands', params), commands);
      return ok(true);
    },
    getMyCommands: (bot, params) => ok(this.read(bot, 'commands', params) ?? []),
    deleteMyCommands: (bot, params) => {
      bot.settings.delete(key('commands', params));
      return ok(true);
    },
    setChatMenuButton: (bot, params) => {
      bot.settings.set(`menu_button|${String(params['chat_id'] ?? '')}|`, params['menu_button'] ?? { type: 'default' });
      return ok(true);
    },
    getChatMenuButton: (bot, params) =>
      ok(bot.settings.get(`menu_button|${String(params['chat_id'] ?? '')}|`) ?? { type: 'default' }),
    setMyDefaultAdministratorRights: (bot, params) => {
      bot.settings.set(`rights|${params['for_channels'] ? 'channels' : 'groups'}|`, params['rights'] ?? {});
      return ok(true);
    },
    getMyDefaultAdministratorRights: (bot, params) =>
      ok(bot.settings.get(`rights|${params['for_channels'] ? 'channels' : 'groups'}|`) ?? defaultRights()),
  };

  private sent(bot: FakeBot, params: Params, content: Params): FakeAnswer {
    const chatId = Number(params['chat_id']);
    if (!Number.isSafeInteger(chatId)) return telegramError(400, 'Bad Request: chat not found');
    return ok({
      message_id: bot.nextMessageId++,
      from: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
      chat: { id: chatId, type: 'private' },
      date: Math.floor(Date.now() / 1000),
      ...Object.fromEntries(Object.entries(content).filter(([, v]) => v !== undefined)),
    });
  }

  private setting(bot: FakeBot, name: string, params: Params, field: string, limit: number): FakeAnswer {
    const value = params[field];
    if (typeof value === 'string' && value.length > limit)
      return telegramError(400, `Bad Request: ${field} is too long`);
    if (value === undefined || value === '') bot.settings.delete(key(name, params));
    else bot.settings.set(key(name, params), value);
    return ok(true);
  }

  private read(bot: FakeBot, name: string, params: Params): unknown {
    return bot.settings.get(key(name, params));
  }

  private file(request: RecordedRequest): FakeAnswer {
    const [, tokenPart, path] = /^\/file\/bot([^/]+)\/(.+)$/.exec(request.path) ?? [];
    const bot = this.bots.get(tokenPart ?? '');
    const file = bot && [...bot.files.values()].find((f) => f.path === path);
    if (!file) return { status: 404, body: { ok: false, error_code: 404, description: 'Not Found' } };
    return { status: 200, body: file.bytes, headers: { 'content-type': file.mimeType } };
  }
}

function key(name: string, params: Params): string {
  return `${name}|${params['scope'] ? JSON.stringify(params['scope']) : ''}|${String(params['language_code'] ?? '')}`;
}

function ok(result: unknown, description?: string): FakeAnswer {
  return { status: 200, body: { ok: true, result, ...(description ? { description } : {}) } };
}

export function telegramError(errorCode: number, description: string, retryAfter?: number): FakeAnswer {
  return {
    status: errorCode,
    body: {
      ok: false,
      error_code: errorCode,
      description,
      ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}),
    },
  };
}

function defaultRights(): Params {
  return {
    is_anonymous: false,
    can_manage_chat: false,
    can_delete_messages: false,
    can_manage_video_chats: false,
    can_restrict_members: false,
    can_promote_members: false,
    can_change_info: false,
    can_invite_users: false,
    can_post_stories: false,
    can_edit_stories: false,
    can_delete_stories: false,
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
