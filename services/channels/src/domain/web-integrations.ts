import { IsNull, type DataSource, type EntityManager } from 'typeorm';
import {
  Forbidden,
  InvalidArgument,
  NotFound,
  PrincipalKind,
  enqueueEvents,
  isId,
  newId,
  now,
  requireOrg,
  requireScope,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import {
  ChannelType,
  type ResolvedWebIntegration,
  type WebIntegrationInput,
  type WebIntegrationWithSecret,
} from '@svc/proto/channels/v1';
import { ChannelRow, WebIntegrationRow } from '../entities';
import { channelEvent } from './events';
import { type IdentitySecrets, PUBLIC_KEY_PATTERN, newIdentitySecret, newPublicKey } from './secrets';
import { fieldsOf, webIntegrationView, type StoredWebIntegration } from './views';
import { applyInput, defaultFields, type WebIntegrationFields } from './web-settings';

const EMPTY_INPUT: WebIntegrationInput = {};

/** A web integration of `orgId` that is not deleted, or NOT_FOUND (another org's id too: no existence oracle). */
export async function findWebIntegration(
  manager: EntityManager,
  orgId: string,
  id: string,
  field = 'id',
): Promise<StoredWebIntegration> {
  if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  const channel = await manager.findOneBy(ChannelRow, { id, orgId, type: ChannelType.WEB, deletedAt: IsNull() });
  const web = channel && (await manager.findOneBy(WebIntegrationRow, { id, orgId }));
  if (!channel || !web) throw new NotFound('web integration not found', { field });
  return { channel, web };
}

function settingsColumns(fields: WebIntegrationFields) {
  return {
    settings: JSON.stringify(fields.settings),
    identityVerification: fields.security.identityVerification,
    googleClientId: fields.security.googleClientId,
    jwtMaxAgeSeconds: fields.security.jwtMaxAgeSeconds,
  };
}

/** Web integrations (channels of type WEB): CRUD for CHANNELS_MANAGE, public key resolution for widget-api. */
export class WebIntegrations {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly secrets: IdentitySecrets,
  ) {}

  /** The org's oldest web integration that is not deleted (docs/decisions/0075); NOT_FOUND when it has none. */
  async getDefault(principal: Principal): Promise<StoredWebIntegration> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const channel = await manager.findOne(ChannelRow, {
      where: { orgId, type: ChannelType.WEB, deletedAt: IsNull() },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    if (!channel) throw new NotFound('this org has no web integration');
    return findWebIntegration(manager, orgId, channel.id);
  }

  async get(principal: Principal, id: string): Promise<StoredWebIntegration> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    return findWebIntegration(this.dataSource.manager, requireOrg(principal), id);
  }

  async create(principal: Principal, input: WebIntegrationInput = EMPTY_INPUT): Promise<WebIntegrationWithSecret> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const fields = applyInput(defaultFields(), input);
    const identitySecret = newIdentitySecret();
    const stored = await this.dataSource.transaction(async (manager) => {
      const at = now();
      const id = newId(at);
      const channel = manager.create(ChannelRow, {
        id,
        orgId,
        type: ChannelType.WEB,
        status: fields.status,
        name: fields.name,
        createdAt: at,
        updatedAt: at,
        deletedAt: null,
      });
      const web = manager.create(WebIntegrationRow, {
        id,
        orgId,
        publicKey: newPublicKey(),
        ...settingsColumns(fields),
        identitySecretSealed: this.secrets.seal(identitySecret, { orgId, id }),
        identitySecretRotatedAt: at,
      });
      await manager.insert(ChannelRow, channel);
      await manager.insert(WebIntegrationRow, web);
      await enqueueEvents(manager, [channelEvent('channel.created', channel, web.publicKey)], at);
      return { channel, web };
    });
    this.relay().nudge();
    return { integration: webIntegrationView(stored), identitySecret };
  }

  async update(principal: Principal, id: string, input: WebIntegrationInput = EMPTY_INPUT) {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const stored = await this.dataSource.transaction(async (manager) => {
      const found = await findWebIntegration(manager, orgId, id);
      const fields = applyInput(fieldsOf(found), input);
      const at = now();
      Object.assign(found.channel, { name: fields.name, status: fields.status, updatedAt: at });
      Object.assign(found.web, settingsColumns(fields));
      await manager.update(ChannelRow, { id, orgId }, { name: fields.name, status: fields.status, updatedAt: at });
      await manager.update(WebIntegrationRow, { id, orgId }, settingsColumns(fields));
      await enqueueEvents(manager, [channelEvent('channel.updated', found.channel, found.web.publicKey)], at);
      return found;
    });
    this.relay().nudge();
    return webIntegrationView(stored);
  }

  /** A new identity secret, answered once; the old one opens nothing from the next proof on. */
  async rotateSecret(principal: Principal, id: string): Promise<WebIntegrationWithSecret> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    const identitySecret = newIdentitySecret();
    const stored = await this.dataSource.transaction(async (manager) => {
      const found = await findWebIntegration(manager, orgId, id);
      const at = now();
      const sealed = this.secrets.seal(identitySecret, { orgId, id });
      Object.assign(found.web, { identitySecretSealed: sealed, identitySecretRotatedAt: at });
      found.channel.updatedAt = at;
      await manager.update(
        WebIntegrationRow,
        { id, orgId },
        { identitySecretSealed: sealed, identitySecretRotatedAt: at },
      );
      await manager.update(ChannelRow, { id, orgId }, { updatedAt: at });
      await enqueueEvents(manager, [channelEvent('channel.secret_rotated', found.channel, found.web.publicKey)], at);
      return found;
    });
    this.relay().nudge();
    return { integration: webIntegrationView(stored), identitySecret };
  }

  /**
   * Soft delete: the channel row stays (chats keep naming it) but is NOT_FOUND everywhere from now on, its public key
   * resolves to nothing and its sealed secret is erased.
   */
  async delete(principal: Principal, id: string): Promise<{ deleted: boolean; id: string }> {
    requireScope(principal, ApiScope.CHANNELS_MANAGE);
    const orgId = requireOrg(principal);
    await this.dataSource.transaction(async (manager) => {
      const found = await findWebIntegration(manager, orgId, id);
      const at = now();
      found.channel.deletedAt = at;
      await manager.update(ChannelRow, { id, orgId }, { deletedAt: at, updatedAt: at });
      await manager.update(WebIntegrationRow, { id, orgId }, { identitySecretSealed: '' });
      await enqueueEvents(manager, [channelEvent('channel.deleted', found.channel, found.web.publicKey)], at);
    });
    this.relay().nudge();
    return { deleted: true, id };
  }

  /**
   * widget-api as SYSTEM of the installation (no org: a public key is what names the org). Any status, DISABLED too
   * (widget-api answers 404 for it); NOT_FOUND for an unknown or deleted key.
   */
  async resolvePublicKey(principal: Principal, publicKey: string): Promise<ResolvedWebIntegration> {
    if (principal.kind !== PrincipalKind.SYSTEM || principal.orgId)
      throw new Forbidden('only services of this installation, acting for no org, resolve public keys');
    const key = publicKey.trim();
    const manager = this.dataSource.manager;
    const web = PUBLIC_KEY_PATTERN.test(key) ? await manager.findOneBy(WebIntegrationRow, { publicKey: key }) : null;
    const channel = web && (await manager.findOneBy(ChannelRow, { id: web.id, orgId: web.orgId, deletedAt: IsNull() }));
    if (!web || !channel) throw new NotFound('no web integration has this public key', { field: 'publicKey' });
    return { orgId: web.orgId, integration: webIntegrationView({ channel, web }) };
  }
}
