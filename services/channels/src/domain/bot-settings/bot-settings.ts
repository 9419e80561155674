import {
  FailedPrecondition,
  InvalidArgument,
  NotFound,
  RateLimited,
  Unavailable,
  isId,
  requireOrg,
  requireScope,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ChannelType } from '@svc/proto/channels/v1';
import type {
  ChatAppBBotSettings,
  DeleteChatAppBBotCommandsRequest,
  GetChatAppBBotSettingsRequest,
  SetChatAppBBotCommandsRequest,
  SetChatAppBBotDefaultAdminRightsRequest,
  SetChatAppBBotMenuButtonRequest,
  UpdateChatAppBBotDescriptionRequest,
  UpdateChatAppBBotNameRequest,
  UpdateChatAppBBotShortDescriptionRequest,
} from '@svc/proto/channels/v1/bot_settings';
import { PlatformCallError } from '../../platforms/adapter';
import type { TelegramApi } from '../../platforms/chat-app-b';
import type { PlatformChannels } from '../platform-channels';
import {
  DESCRIPTION_LIMIT,
  NAME_LIMIT,
  SHORT_DESCRIPTION_LIMIT,
  adminRights,
  commandScope,
  commands,
  languageCode,
  menuButton,
  settingText,
} from './limits';
import { adminRightsView, menuButtonView, scopeView, type TelegramMenuButton } from './views';

interface Bot {
  channelId: string;
  token: string;
}

/** What a read covers: one language, and the commands of one scope. */
interface ReadOf {
  languageCode: string;
  scope: Record<string, unknown> | undefined;
}

/**
 * A CHAT_APP_B channel's bot settings, read from and written to the platform (nothing is stored here: the platform
 * is the one source, and a change made in @BotFather shows up at once). Decision 0134: the channel must be a
 * connected CHAT_APP_B channel of the caller's org; another org's, unknown or disconnected id is NOT_FOUND, the org's
 * own channel of another kind is BAD_USER_INPUT naming `channelId`.
 */
export class BotSettings {
  constructor(
    private readonly channels: PlatformChannels,
    private readonly telegram: TelegramApi,
  ) {}

  async get(principal: Principal, request: GetChatAppBBotSettingsRequest): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const bot = await this.bot(orgId, request.channelId);
    return this.read(bot, {
      languageCode: languageCode(request.languageCode),
      scope: commandScope(request.commandsScope, 'commandsScope'),
    });
  }

  async updateName(principal: Principal, request: UpdateChatAppBBotNameRequest): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const read = { languageCode: languageCode(request.languageCode), scope: undefined };
    const name = settingText(request.name, 'name', NAME_LIMIT);
    const bot = await this.bot(orgId, request.channelId);
    await this.call(bot, 'setMyName', { name, ...language(read) }, 'name');
    return this.read(bot, read);
  }

  async updateDescription(
    principal: Principal,
    request: UpdateChatAppBBotDescriptionRequest,
  ): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const read = { languageCode: languageCode(request.languageCode), scope: undefined };
    const description = settingText(request.description, 'description', DESCRIPTION_LIMIT);
    const bot = await this.bot(orgId, request.channelId);
    await this.call(bot, 'setMyDescription', { description, ...language(read) }, 'description');
    return this.read(bot, read);
  }

  async updateShortDescription(
    principal: Principal,
    request: UpdateChatAppBBotShortDescriptionRequest,
  ): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const read = { languageCode: languageCode(request.languageCode), scope: undefined };
    const shortDescription = settingText(request.shortDescription, 'shortDescription', SHORT_DESCRIPTION_LIMIT);
    const bot = await this.bot(orgId, request.channelId);
    await this.call(
      bot,
      'setMyShortDescription',
      { short_description: shortDescription, ...language(read) },
      'shortDescription',
    );
    return this.read(bot, read);
  }

  async setCommands(principal: Principal, request: SetChatAppBBotCommandsRequest): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const read = { languageCode: languageCode(request.languageCode), scope: commandScope(request.scope) };
    const list = commands(request.commands);
    const bot = await this.bot(orgId, request.channelId);
    await this.call(bot, 'setMyCommands', { commands: list, ...scoped(read), ...language(read) }, 'commands');
    return this.read(bot, read);
  }

  async deleteCommands(principal: Principal, request: DeleteChatAppBBotCommandsRequest): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const read = { languageCode: languageCode(request.languageCode), scope: commandScope(request.scope) };
    const bot = await this.bot(orgId, request.channelId);
    await this.call(bot, 'deleteMyCommands', { ...scoped(read), ...language(read) }, 'scope');
    return this.read(bot, read);
  }

  async setMenuButton(principal: Principal, request: SetChatAppBBotMenuButtonRequest): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const button = menuButton(request.menuButton);
    const bot = await this.bot(orgId, request.channelId);
    await this.call(bot, 'setChatMenuButton', { menu_button: button }, 'menuButton');
    return this.read(bot, { languageCode: '', scope: undefined });
  }

  async setDefaultAdminRights(
    principal: Principal,
    request: SetChatAppBBotDefaultAdminRightsRequest,
  ): Promise<ChatAppBBotSettings> {
    const orgId = authorize(principal);
    const bot = await this.bot(orgId, request.channelId);
    await this.call(
      bot,
      'setMyDefaultAdministratorRights',
      { ...(request.rights ? { rights: adminRights(request.rights) } : {}), for_channels: request.forChannels },
      'rights',
    );
    return this.read(bot, { languageCode: '', scope: undefined });
  }

  /** Every get* method at once: the settings as the platform holds them now. */
  private async read(bot: Bot, of: ReadOf): Promise<ChatAppBBotSettings> {
    const lang = language(of);
    const [name, description, shortDescription, list, button, groupRights, channelRights] = await Promise.all([
      this.call<{ name: string }>(bot, 'getMyName', lang),
      this.call<{ description: string }>(bot, 'getMyDescription', lang),
      this.call<{ short_description: string }>(bot, 'getMyShortDescription', lang),
      this.call<{ command: string; description: string }[]>(bot, 'getMyCommands', { ...scoped(of), ...lang }),
      this.call<TelegramMenuButton>(bot, 'getChatMenuButton', {}),
      this.call<Record<string, boolean>>(bot, 'getMyDefaultAdministratorRights', { for_channels: false }),
      this.call<Record<string, boolean>>(bot, 'getMyDefaultAdministratorRights', { for_channels: true }),
    ]);
    return {
      channelId: bot.channelId,
      languageCode: of.languageCode,
      name: name.name,
      description: description.description,
      shortDescription: shortDescription.short_description,
      commands: list.map(({ command, description: text }) => ({ command, description: text })),
      commandsScope: scopeView(of.scope),
      menuButton: menuButtonView(button),
      defaultAdminRights: adminRightsView(groupRights),
      defaultChannelAdminRights: adminRightsView(channelRights),
    };
  }

  private async bot(orgId: string, channelId: string): Promise<Bot> {
    if (!isId(channelId)) throw new InvalidArgument('channelId must be a 24-character hex id', { field: 'channelId' });
    const loaded = await this.channels.load(channelId);
    if (!loaded || loaded.channel.orgId !== orgId || loaded.disconnected) {
      throw new NotFound('channel not found', { field: 'channelId' });
    }
    if (loaded.channel.type !== ChannelType.CHAT_APP_B) {
      throw new InvalidArgument('channelId: bot settings exist for CHAT_APP_B channels only', { field: 'channelId' });
    }
    const token = loaded.channel.credentials['botToken'];
    if (!token) throw new NotFound('channel not found', { field: 'channelId' });
    return { channelId, token };
  }

  /** One Bot API call; the platform's refusal becomes the API's error (its words kept, the token never). */
  private async call<T>(bot: Bot, method: string, params: object, field = 'channelId'): Promise<T> {
    try {
      return await this.telegram.call<T>(bot.token, method, params);
    } catch (error) {
      if (!(error instanceof PlatformCallError)) throw error;
      const { transient, reauthorize, retryAfterMs, message } = error.error;
      if (reauthorize)
        throw new FailedPrecondition(`the platform refused the bot token; reconnect the channel (${message})`);
      if (retryAfterMs !== undefined)
        throw new RateLimited(`the platform asks to wait ${Math.ceil(retryAfterMs / 1000)} s (${message})`);
      if (transient) throw new Unavailable(`the platform did not answer ${method} (${message})`);
      throw new InvalidArgument(`${field}: the platform refused ${method}: ${message}`, { field });
    }
  }
}

/** The scope comes first: a caller without it learns nothing about its arguments. */
function authorize(principal: Principal): string {
  requireScope(principal, ApiScope.CHANNELS_MANAGE);
  return requireOrg(principal);
}

function language(of: ReadOf): { language_code?: string } {
  return of.languageCode ? { language_code: of.languageCode } : {};
}

function scoped(of: ReadOf): { scope?: Record<string, unknown> } {
  return of.scope ? { scope: of.scope } : {};
}
