import { hkdfSync } from 'node:crypto';
import { IsNull, MoreThan, type DataSource } from 'typeorm';
import { SignJWT, decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import {
  FailedPrecondition,
  InvalidArgument,
  newId,
  now,
  requireOrg,
  requireScope,
  type Logger,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ChannelType } from '@svc/proto/channels/v1';
import type {
  Channel,
  CreatePartnerConnectUrlRequest,
  PartnerConnectUrl,
} from '@svc/proto/channels/v1/platform_channels';
import type { ChannelsConfig } from '../../config';
import { ConnectStateRow, PlatformChannelRow } from '../../entities';
import type { PlatformChannelType } from '../../entities/platform-channel';
import type { PlatformAdapters } from '../../platforms';
import { channelsPublicUrl } from '../../http/urls';
import { CHANNEL_NAME_MAX } from '../manage/channels';
import { text } from '../validation';
import type { PlatformConnections } from './connect';
import { hostedConnectPlatforms, type HostedConnectPlatform } from './hosted-platforms';

export const CONNECT_CALLBACK_PATH = '/channels/connect/callback';
const STATE_ISSUER = 'svc-channels';
const STATE_AUDIENCE = 'channels-connect';

/** Why a callback was refused, as the page and the `error` query of the return URL name it. */
export type ConnectFailure =
  | 'state_missing'
  | 'state_invalid'
  | 'state_expired'
  | 'state_used'
  | 'declined'
  | 'platform_refused'
  | 'platform_unavailable'
  | 'already_connected'
  | 'failed';

export class ConnectCallbackError extends Error {
  constructor(
    readonly reason: ConnectFailure,
    message: string,
    readonly returnUrl = '',
  ) {
    super(message);
  }
}

export type CallbackOutcome = { channel: Channel; returnUrl: string };

/** `https://…` (http only for localhost), at most 2000 characters: where the callback sends the browser back. */
function returnUrlOf(value: string): string {
  const raw = value.trim();
  if (!raw) return '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgument('returnUrl: not an absolute URL', { field: 'returnUrl' });
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    throw new InvalidArgument('returnUrl: must be https (http only for localhost)', { field: 'returnUrl' });
  if (url.username || url.password)
    throw new InvalidArgument('returnUrl: must not carry credentials', { field: 'returnUrl' });
  if (raw.length > 2000) throw new InvalidArgument('returnUrl: at most 2000 characters', { field: 'returnUrl' });
  return url.toString();
}

/**
 * The hosted connect (docs/decisions/0122): `create` stores a single-use state row and answers the platform dialog's
 * URL carrying a JWT (HS256, key derived from the kind's app secret by HKDF) naming that row, the org and the kind,
 * expiring after CHANNELS_CONNECT_STATE_TTL_SECONDS; `complete` (the callback) verifies the JWT, takes the row once,
 * exchanges the code at the platform and connects as connectChatAppAChannel / connectSocialAppDChannel would.
 */
export class HostedConnect {
  private readonly platforms: ReadonlyMap<PlatformChannelType, HostedConnectPlatform>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly connections: PlatformConnections,
    private readonly config: ChannelsConfig,
    adapters: PlatformAdapters,
    private readonly logger: Logger,
  ) {
    this.platforms = hostedConnectPlatforms(config, adapters);
  }

  private get redirectUri(): string {
    return `${channelsPublicUrl(this.config)}${CONNECT_CALLBACK_PATH}`;
  }

  async create(principal: Principal, request: CreatePartnerConnectUrlRequest): Promise<PartnerConnectUrl> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const platform = this.platforms.get(request.type as PlatformChannelType);
    if (!platform)
      throw new InvalidArgument('type: the hosted connect is for CHAT_APP_A and SOCIAL_APP_D', { field: 'type' });
    if (!platform.app)
      throw new FailedPrecondition(
        `the hosted connect of ${ChannelType[platform.type]} is not configured on this installation (its app id and secret)`,
      );
    const options = request.options ?? {};
    const name = options.name === undefined ? '' : text(options.name, 'name', CHANNEL_NAME_MAX, { allowEmpty: false });
    const returnUrl = returnUrlOf(request.returnUrl);
    const at = now();
    const expiresAt = new Date(at.getTime() + this.config.CHANNELS_CONNECT_STATE_TTL_SECONDS * 1000);
    const row = this.dataSource.manager.create(ConnectStateRow, {
      id: newId(at),
      orgId,
      type: platform.type,
      name,
      aiAutoReply: options.aiAutoReply ?? false,
      returnUrl,
      createdAt: at,
      expiresAt,
      usedAt: null,
      channelId: '',
    });
    await this.dataSource.manager.insert(ConnectStateRow, row);
    const state = await new SignJWT({ org: orgId, kind: ChannelType[platform.type] })
      .setProtectedHeader({ alg: 'HS256' })
      .setJti(row.id)
      .setIssuer(STATE_ISSUER)
      .setAudience(STATE_AUDIENCE)
      .setIssuedAt(Math.floor(at.getTime() / 1000))
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(stateKey(platform));
    return { url: platform.dialogUrl({ redirectUri: this.redirectUri, state }), expiresAt: expiresAt.toISOString() };
  }

  /** The callback: `code` + `state` from the platform's dialog (or `error` when the user declined). */
  async complete(query: Record<string, string | undefined>): Promise<CallbackOutcome> {
    const { row, platform } = await this.takeState(query.state);
    try {
      if (query.error || !query.code)
        throw new ConnectCallbackError(
          'declined',
          `the connect was declined at the platform (${query.error ?? 'no code'})`,
        );
      let credentials: Record<string, string>;
      try {
        credentials = await platform.credentialsFromCode(query.code, this.redirectUri, async (accountId) =>
          this.dataSource.manager.existsBy(PlatformChannelRow, {
            connectedAccount: `${ChannelType[platform.type]}:${accountId}`,
          }),
        );
      } catch (error) {
        throw platformFailure(error);
      }
      let channel: Channel;
      try {
        channel = await this.connections.connectForOrg(
          row.orgId,
          platform.type,
          credentials,
          {
            ...(row.name ? { name: row.name } : {}),
            aiAutoReply: row.aiAutoReply,
          },
          { hosted: true },
        );
      } catch (error) {
        throw connectFailure(error);
      }
      await this.dataSource.manager.update(ConnectStateRow, { id: row.id }, { channelId: channel.id });
      return { channel, returnUrl: row.returnUrl };
    } catch (error) {
      if (error instanceof ConnectCallbackError)
        throw new ConnectCallbackError(error.reason, error.message, row.returnUrl);
      throw error;
    }
  }

  /** Verifies the JWT, then marks its row used in one conditional update: a second callback with it is refused. */
  private async takeState(
    state: string | undefined,
  ): Promise<{ row: ConnectStateRow; platform: HostedConnectPlatform }> {
    if (!state) throw new ConnectCallbackError('state_missing', 'the callback carries no state');
    let kind: unknown;
    try {
      kind = decodeJwt(state).kind;
    } catch {
      throw new ConnectCallbackError('state_invalid', 'the state is not one this service made');
    }
    const platform =
      typeof kind === 'string'
        ? this.platforms.get(ChannelType[kind as keyof typeof ChannelType] as PlatformChannelType)
        : undefined;
    if (!platform?.app) throw new ConnectCallbackError('state_invalid', 'the state is not one this service made');
    let jti: string;
    try {
      const { payload } = await jwtVerify(state, stateKey(platform), {
        algorithms: ['HS256'],
        issuer: STATE_ISSUER,
        audience: STATE_AUDIENCE,
        requiredClaims: ['jti', 'exp'],
      });
      jti = payload.jti!;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired)
        throw new ConnectCallbackError('state_expired', 'this connect link has expired; start again');
      throw new ConnectCallbackError('state_invalid', 'the state is not one this service made');
    }
    const at = now();
    const taken = await this.dataSource.manager.update(
      ConnectStateRow,
      { id: jti, usedAt: IsNull(), expiresAt: MoreThan(at) },
      { usedAt: at },
    );
    const row = await this.dataSource.manager.findOneBy(ConnectStateRow, { id: jti });
    if (!row) throw new ConnectCallbackError('state_invalid', 'the state is not one this service made');
    if (!taken.affected) {
      if (row.usedAt)
        throw new ConnectCallbackError('state_used', 'this connect link was already used; start again', row.returnUrl);
      throw new ConnectCallbackError('state_expired', 'this connect link has expired; start again', row.returnUrl);
    }
    this.logger.info({ stateId: row.id, orgId: row.orgId, type: ChannelType[row.type] }, 'hosted connect callback');
    return { row, platform };
  }
}

/** HS256 key of the kind's states: HKDF-SHA256 of its app secret, so no other secret needs configuring. */
function stateKey(platform: HostedConnectPlatform): Uint8Array {
  return new Uint8Array(
    hkdfSync(
      'sha256',
      platform.app!.appSecret,
      '',
      `svc-channels hosted connect state ${ChannelType[platform.type]}`,
      32,
    ),
  );
}

function platformFailure(error: unknown): unknown {
  const platformError = (error as { error?: { transient?: boolean; message?: string } }).error;
  if (!platformError) return error;
  return platformError.transient
    ? new ConnectCallbackError('platform_unavailable', `the platform did not answer: ${platformError.message}`)
    : new ConnectCallbackError('platform_refused', `the platform refused: ${platformError.message}`);
}

function connectFailure(error: unknown): unknown {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message;
  if (code === 'CONFLICT') return new ConnectCallbackError('already_connected', message);
  if (code === 'UNAVAILABLE') return new ConnectCallbackError('platform_unavailable', message);
  if (code === 'BAD_USER_INPUT' || code === 'FAILED_PRECONDITION')
    return new ConnectCallbackError('platform_refused', message);
  return error;
}
