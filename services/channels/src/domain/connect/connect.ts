import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  Conflict,
  InvalidArgument,
  enqueueEvents,
  isDuplicateKeyError,
  newId,
  now,
  requireOrg,
  requireScope,
  type Logger,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import type { Channel, ConnectOptions } from '@svc/proto/channels/v1/platform_channels';
import type { ChannelsConfig } from '../../config';
import { ChannelRow, PlatformChannelRow } from '../../entities';
import type { PlatformChannelType } from '../../entities/platform-channel';
import { markHostedConnect, webhookTarget } from '../../http/app-webhooks';
import { PlatformCallError, type ConnectedChannel, type PlatformAccount } from '../../platforms/adapter';
import type { PlatformAdapters } from '../../platforms/registry';
import { channelEvent } from '../events';
import { CHANNEL_NAME_MAX } from '../manage/channels';
import { channelView } from '../manage/views';
import type { PlatformChannels } from '../platform-channels';
import { text } from '../validation';
import { platformRefusal } from './platform-errors';

/** The credential field a platform's refusal of the credentials is reported on (the token, for every kind). */
export const PRIMARY_CREDENTIAL: Record<PlatformChannelType, string> = {
  [ChannelType.CHAT_APP_A]: 'accessToken',
  [ChannelType.CHAT_APP_B]: 'botToken',
  [ChannelType.CHAT_APP_C]: 'authToken',
  [ChannelType.SOCIAL_APP_D]: 'pageAccessToken',
};

/** The Graph API refuses a wrong app secret through `appsecret_proof`: that names the app secret, not the token. */
function refusedField(type: PlatformChannelType, error: unknown): string {
  const message = error instanceof PlatformCallError ? error.error.message : '';
  return 'appSecret' in CREDENTIAL_FIELDS_OF[type] && /appsecret/i.test(message)
    ? 'appSecret'
    : PRIMARY_CREDENTIAL[type];
}

const CREDENTIAL_FIELDS_OF: Record<PlatformChannelType, Record<string, true>> = {
  [ChannelType.CHAT_APP_A]: { accessToken: true, phoneNumberId: true, businessAccountId: true, appSecret: true },
  [ChannelType.CHAT_APP_B]: { botToken: true },
  [ChannelType.CHAT_APP_C]: { authToken: true },
  [ChannelType.SOCIAL_APP_D]: { pageAccessToken: true, pageId: true, appId: true, appSecret: true },
};

/** 32 random bytes, base64url (43 characters of A-Za-z0-9_-: every kind's secret token or verify token alphabet). */
export function newWebhookSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Connecting a platform account as a channel of an org (docs/decisions/0121): the credentials are checked by the
 * kind's schema, then at the platform (`validate`); an account already connected anywhere is CONFLICT (one account
 * feeds one channel), except the org's own channel of it that NEEDS_REAUTHORIZATION, which takes the new credentials.
 * The rows are written first (the unique account index settles a race), then the webhook is registered with a secret
 * generated here; a refused registration removes the rows again. Credentials and the secret are stored sealed, never
 * answered, never logged.
 */
export class PlatformConnections {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly platformChannels: () => PlatformChannels,
    private readonly adapters: PlatformAdapters,
    private readonly config: ChannelsConfig,
    private readonly logger: Logger,
  ) {}

  async connect(
    principal: Principal,
    type: PlatformChannelType,
    credentials: Record<string, string>,
    options: ConnectOptions = {},
  ): Promise<Channel> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    return this.connectForOrg(requireOrg(principal), type, credentials, options);
  }

  /**
   * The connect itself, for an org already authorised (the hosted connect's callback comes here, `hosted`: the
   * credentials are the installation app's, so its webhooks arrive at the app-level endpoint, decision 0146).
   */
  async connectForOrg(
    orgId: string,
    type: PlatformChannelType,
    raw: Record<string, string>,
    options: ConnectOptions = {},
    { hosted = false } = {},
  ): Promise<Channel> {
    const adapter = this.adapters.get(type);
    if (!adapter) throw new InvalidArgument(`type: ${ChannelType[type]} cannot be connected here`, { field: 'type' });
    const name =
      options.name === undefined ? undefined : text(options.name, 'name', CHANNEL_NAME_MAX, { allowEmpty: false });
    const parsed = adapter.credentialsSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = String(issue.path[0] ?? PRIMARY_CREDENTIAL[type]);
      throw new InvalidArgument(`${field}: ${issue.message}`, { field });
    }
    const credentials = parsed.data;
    let account: PlatformAccount;
    try {
      account = await adapter.validate(credentials);
      if (hosted) account = markHostedConnect(account);
    } catch (error) {
      throw platformRefusal(error, refusedField(type, error), 'checking the credentials');
    }
    const connectedAccount = `${ChannelType[type]}:${account.externalId}`;
    const existing = await this.dataSource.manager.findOneBy(PlatformChannelRow, { connectedAccount });
    if (existing) return this.reauthorize(orgId, existing, credentials, account);

    const id = newId();
    const webhookSecret = newWebhookSecret();
    const at = now();
    const channel = this.dataSource.manager.create(ChannelRow, {
      id,
      orgId,
      type,
      status: ChannelStatus.ACTIVE,
      name: name ?? account.displayName.slice(0, CHANNEL_NAME_MAX),
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    });
    const platform = this.dataSource.manager.create(PlatformChannelRow, {
      id,
      orgId,
      type,
      connectedAccount,
      externalAccountId: account.externalId,
      account: JSON.stringify(account),
      credentialsSealed: this.platformChannels().sealCredentials(credentials, { orgId, id }),
      webhookSecretSealed: this.platformChannels().sealWebhookSecret(webhookSecret, { orgId, id }),
      aiAutoReply: options.aiAutoReply ?? false,
      authorizationError: '',
      connectedAt: at,
    });
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager.insert(ChannelRow, channel);
        await manager.insert(PlatformChannelRow, platform);
      });
    } catch (error) {
      if (isDuplicateKeyError(error)) throw alreadyConnected();
      throw error;
    }
    const connected: ConnectedChannel = { channelId: id, orgId, type, account, credentials, webhookSecret };
    try {
      const target = webhookTarget(this.config, connected);
      await adapter.registerWebhook(connected, target.url, target.appLevel);
    } catch (error) {
      await this.dataSource.transaction(async (manager) => {
        await manager.delete(PlatformChannelRow, { id, orgId });
        await manager.delete(ChannelRow, { id, orgId });
      });
      throw platformRefusal(error, PRIMARY_CREDENTIAL[type], 'registering the webhook');
    }
    await this.dataSource.transaction((manager) =>
      enqueueEvents(manager, [channelEvent('channel.created', channel)], at),
    );
    this.relay().nudge();
    this.logger.info({ channelId: id, orgId, type: ChannelType[type] }, 'platform channel connected');
    return channelView(channel, platform);
  }

  /**
   * The org's own channel of this account that the platform stopped accepting takes the new credentials and becomes
   * ACTIVE; the webhook is registered again with the channel's existing secret, so deliveries in flight still verify.
   */
  private async reauthorize(
    orgId: string,
    existing: PlatformChannelRow,
    credentials: Record<string, string>,
    account: PlatformAccount,
  ): Promise<Channel> {
    const loaded = await this.platformChannels().load(existing.id);
    if (existing.orgId !== orgId || !loaded || loaded.status !== ChannelStatus.NEEDS_REAUTHORIZATION)
      throw alreadyConnected(existing.orgId === orgId ? existing.id : undefined);
    const adapter = this.adapters.get(existing.type)!;
    const connected: ConnectedChannel = { ...loaded.channel, account, credentials };
    try {
      const target = webhookTarget(this.config, connected);
      await adapter.registerWebhook(connected, target.url, target.appLevel);
    } catch (error) {
      throw platformRefusal(error, PRIMARY_CREDENTIAL[existing.type], 'registering the webhook');
    }
    const at = now();
    const owner = { orgId, id: existing.id };
    const channel = await this.dataSource.transaction(async (manager) => {
      const row = await manager.findOneByOrFail(ChannelRow, owner);
      Object.assign(row, { status: ChannelStatus.ACTIVE, updatedAt: at });
      Object.assign(existing, {
        account: JSON.stringify(account),
        credentialsSealed: this.platformChannels().sealCredentials(credentials, owner),
        authorizationError: '',
      });
      await manager.update(ChannelRow, owner, { status: ChannelStatus.ACTIVE, updatedAt: at });
      await manager.update(PlatformChannelRow, owner, {
        account: existing.account,
        credentialsSealed: existing.credentialsSealed,
        authorizationError: '',
      });
      await enqueueEvents(manager, [channelEvent('channel.updated', row)], at);
      return row;
    });
    this.relay().nudge();
    return channelView(channel, existing);
  }
}

function alreadyConnected(channelId?: string): Conflict {
  return new Conflict(
    channelId
      ? `this account is already connected as channel ${channelId}`
      : 'this account is already connected to another channel; disconnect it there first',
  );
}
