import type { DataSource, EntityManager } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  NotFound,
  idsOfOrg,
  isId,
  keysetPage,
  newId,
  now,
  requireMemberSession,
  requireOrg,
  type ChannelsOfOrg,
  type Page,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import {
  GenericHmacPreset,
  HmacEncoding,
  InboundAuthMode,
  InboundConnectionStatus,
  InboundIdentifierType,
  InboundOutcome,
  type GenericHmacInput,
  type InboundConnectionInput,
} from '@svc/proto/webhooks/v1';
import { GENERIC_PRESETS } from '../auth/provider-modes';
import { generateSharedSecret, hashSharedSecret } from '../auth/shared-secret';
import { ConnectionRow, RequestLogRow } from '../entities';
import type { SigningSecrets } from '../secrets/signing-secrets';
import { inferSchema } from './schema-inference';

/** Spec 8: the capture tunnel stays open 5 minutes. */
export const CAPTURE_WINDOW_MS = 5 * 60 * 1000;

export async function findConnection(manager: EntityManager, orgId: string, id: string): Promise<ConnectionRow> {
  if (!isId(id)) throw new InvalidArgument('id must be a 24-character hex id', { field: 'id' });
  const row = await manager.findOneBy(ConnectionRow, { id, orgId });
  if (!row) throw new NotFound('inbound connection not found', { field: 'id' });
  return row;
}

function genericSettings(
  input: GenericHmacInput | undefined,
): Pick<ConnectionRow, 'hmacHeader' | 'hmacEncoding' | 'hmacPrefix'> {
  const preset =
    input?.preset && input.preset !== GenericHmacPreset.GENERIC_HMAC_PRESET_UNSPECIFIED
      ? GENERIC_PRESETS[input.preset as keyof typeof GENERIC_PRESETS]
      : undefined;
  const headerName = input?.headerName?.trim() || preset?.headerName;
  const encoding =
    input?.encoding && input.encoding !== HmacEncoding.HMAC_ENCODING_UNSPECIFIED ? input.encoding : preset?.encoding;
  if (!headerName || !/^[A-Za-z0-9-]{1,100}$/.test(headerName) || !encoding)
    throw new InvalidArgument('Generic HMAC-SHA256 needs a preset, or a header name and an encoding', {
      field: 'genericHmac',
    });
  return { hmacHeader: headerName, hmacEncoding: encoding, hmacPrefix: input?.prefix ?? preset?.prefix ?? null };
}

function validIdentifierPath(path: string | undefined): string {
  const trimmed = path?.trim() ?? '';
  if (!trimmed.startsWith('$') || trimmed.length > 500)
    throw new InvalidArgument('identifierPath must be a JSONPath such as $.customer.email', {
      field: 'identifierPath',
    });
  return trimmed;
}

function validSigningSecret(secret: string | undefined): string {
  const value = secret?.trim() ?? '';
  if (value.length < 8 || value.length > 500)
    throw new InvalidArgument('signingSecret must be the provider signing secret (8 to 500 characters)', {
      field: 'signingSecret',
    });
  return value;
}

export class Connections {
  constructor(
    private readonly dataSource: DataSource,
    private readonly bcryptCost: number,
    private readonly signingSecrets: SigningSecrets,
    private readonly channelsOfOrg: ChannelsOfOrg,
  ) {}

  /**
   * A channel id the connection will store must name a channel of the org: NOT_FOUND naming `channelIntegrationId`
   * otherwise, worded the same for another org's channel and an unknown one (docs/decisions/0042). A malformed one is
   * BAD_USER_INPUT, before channels is asked; channels is asked before anything is written.
   */
  private async requireOwnChannel(orgId: string, channelIntegrationId: string | null): Promise<void> {
    if (channelIntegrationId === null) return;
    if (!isId(channelIntegrationId))
      throw new InvalidArgument('channelIntegrationId must be a 24-character hex id', {
        field: 'channelIntegrationId',
      });
    const found = await this.channelsOfOrg(orgId, [channelIntegrationId]);
    if (!found.includes(channelIntegrationId))
      throw new NotFound('channelIntegrationId names no channel of this org', { field: 'channelIntegrationId' });
  }

  private scope(principal: Principal): string {
    requireMemberSession(principal);
    return requireOrg(principal);
  }

  async create(principal: Principal, input: InboundConnectionInput): Promise<{ row: ConnectionRow; secret?: string }> {
    const orgId = this.scope(principal);
    const name = input.name?.trim() ?? '';
    if (!name || name.length > 200) throw new InvalidArgument('name must be 1 to 200 characters', { field: 'name' });
    const authMode =
      input.authMode && input.authMode !== InboundAuthMode.INBOUND_AUTH_MODE_UNSPECIFIED
        ? input.authMode
        : InboundAuthMode.SHARED_SECRET;
    const identifierType = input.identifierType;
    if (!identifierType || identifierType === InboundIdentifierType.INBOUND_IDENTIFIER_TYPE_UNSPECIFIED)
      throw new InvalidArgument('identifierType is required', { field: 'identifierType' });
    const channelIntegrationId = input.channelIntegrationId?.trim() || null;
    if (identifierType === InboundIdentifierType.CHANNEL_USER_ID && !isId(channelIntegrationId))
      throw new InvalidArgument('a Channel user ID connection needs the channelIntegrationId of its channel', {
        field: 'channelIntegrationId',
      });
    const identifierPath = validIdentifierPath(input.identifierPath);
    const shared = authMode === InboundAuthMode.SHARED_SECRET;
    const signingSecret = shared ? undefined : validSigningSecret(input.signingSecret);
    await this.requireOwnChannel(orgId, channelIntegrationId);
    const secret = shared ? generateSharedSecret() : undefined;
    const at = now();
    const id = newId(at);
    const row: ConnectionRow = {
      id,
      orgId,
      name,
      authMode,
      secretHash: secret ? await hashSharedSecret(secret, this.bcryptCost) : null,
      signingSecretSealed: signingSecret ? this.signingSecrets.seal(signingSecret, { orgId, id }) : null,
      legacySigningSecret: null,
      secretVersion: 1,
      identifierType,
      identifierPath,
      channelIntegrationId,
      ...(authMode === InboundAuthMode.GENERIC_HMAC_SHA256
        ? genericSettings(input.genericHmac)
        : { hmacHeader: null, hmacEncoding: null, hmacPrefix: null }),
      status: InboundConnectionStatus.ACTIVE,
      schemaFields: '[]',
      schemaVersion: 0,
      schemaCapturedAt: null,
      captureUntil: null,
      createdAt: at,
      updatedAt: at,
      revision: 1,
    };
    await this.dataSource.manager.insert(ConnectionRow, row);
    return { row, ...(secret ? { secret } : {}) };
  }

  /** The auth mode is fixed at creation (a new mode means new sender configuration: create a new connection). */
  async update(principal: Principal, id: string, input: InboundConnectionInput): Promise<ConnectionRow> {
    const orgId = this.scope(principal);
    const channelIntegrationId = input.channelIntegrationId?.trim() || null;
    await this.requireOwnChannel(orgId, channelIntegrationId);
    return this.dataSource.transaction(async (manager) => {
      const row = await findConnection(manager, orgId, id);
      if (
        input.authMode &&
        input.authMode !== InboundAuthMode.INBOUND_AUTH_MODE_UNSPECIFIED &&
        input.authMode !== row.authMode
      )
        throw new FailedPrecondition('the auth mode of a connection cannot change; create a new connection');
      if (input.name !== undefined) {
        const name = input.name.trim();
        if (!name || name.length > 200)
          throw new InvalidArgument('name must be 1 to 200 characters', { field: 'name' });
        row.name = name;
      }
      if (input.identifierType && input.identifierType !== InboundIdentifierType.INBOUND_IDENTIFIER_TYPE_UNSPECIFIED)
        row.identifierType = input.identifierType;
      if (input.identifierPath !== undefined) row.identifierPath = validIdentifierPath(input.identifierPath);
      if (input.channelIntegrationId !== undefined) row.channelIntegrationId = channelIntegrationId;
      if (row.identifierType === InboundIdentifierType.CHANNEL_USER_ID && !isId(row.channelIntegrationId))
        throw new InvalidArgument('a Channel user ID connection needs the channelIntegrationId of its channel', {
          field: 'channelIntegrationId',
        });
      if (input.signingSecret !== undefined) {
        if (row.authMode === InboundAuthMode.SHARED_SECRET)
          throw new InvalidArgument('a Shared Secret is generated: use rotateInboundConnectionSecret', {
            field: 'signingSecret',
          });
        row.signingSecretSealed = this.signingSecrets.seal(validSigningSecret(input.signingSecret), row);
        row.legacySigningSecret = null;
        row.secretVersion += 1;
      }
      if (input.genericHmac && row.authMode === InboundAuthMode.GENERIC_HMAC_SHA256)
        Object.assign(row, genericSettings(input.genericHmac));
      row.updatedAt = now();
      await manager.save(ConnectionRow, row);
      return row;
    });
  }

  async list(principal: Principal): Promise<ConnectionRow[]> {
    const orgId = this.scope(principal);
    return this.dataSource.manager.find(ConnectionRow, { where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Which of `ids` name connections of the org (SYSTEM callers: flows checks a Webhook Received trigger). */
  find(principal: Principal, ids: string[]): Promise<string[]> {
    return idsOfOrg(principal, this.dataSource.manager, ConnectionRow, ids, 'connectionIds');
  }

  async get(principal: Principal, id: string): Promise<ConnectionRow> {
    return findConnection(this.dataSource.manager, this.scope(principal), id);
  }

  /** A new Shared Secret, returned once; the version bump makes every cached verification of the old one miss. */
  async rotate(principal: Principal, id: string): Promise<{ row: ConnectionRow; secret: string }> {
    const orgId = this.scope(principal);
    const secret = generateSharedSecret();
    const hash = await hashSharedSecret(secret, this.bcryptCost);
    const row = await this.dataSource.transaction(async (manager) => {
      const found = await findConnection(manager, orgId, id);
      if (found.authMode !== InboundAuthMode.SHARED_SECRET)
        throw new FailedPrecondition('only Shared Secret connections have a generated secret; update signingSecret');
      found.secretHash = hash;
      found.secretVersion += 1;
      found.updatedAt = now();
      await manager.update(
        ConnectionRow,
        { id: found.id, orgId },
        { secretHash: hash, secretVersion: found.secretVersion, updatedAt: found.updatedAt },
      );
      return found;
    });
    return { row, secret };
  }

  setStatus(principal: Principal, id: string, status: InboundConnectionStatus): Promise<ConnectionRow> {
    return this.change(principal, id, (row) => {
      row.status = status;
    });
  }

  openCapture(principal: Principal, id: string): Promise<ConnectionRow> {
    return this.change(principal, id, (row, at) => {
      row.captureUntil = new Date(at.getTime() + CAPTURE_WINDOW_MS);
    });
  }

  /** Injecting a sample is treated exactly like a live capture (spec 3), history row included. */
  async inject(principal: Principal, id: string, payloadJson: string): Promise<ConnectionRow> {
    const orgId = this.scope(principal);
    let payload: unknown;
    try {
      payload = JSON.parse(payloadJson);
    } catch {
      throw new InvalidArgument('payload must be JSON', { field: 'payload' });
    }
    return this.dataSource.transaction(async (manager) => {
      const row = await findConnection(manager, orgId, id);
      const at = now();
      applyCapture(row, payload, at);
      await manager.save(ConnectionRow, row);
      await manager.insert(RequestLogRow, {
        id: newId(at),
        orgId,
        connectionId: row.id,
        requestId: null,
        idempotencyKey: null,
        outcome: InboundOutcome.SAMPLE_CAPTURED,
        httpStatus: 202,
        headers: '{}',
        contactId: null,
        flowIds: '[]',
        replay: false,
        detail: 'injected from the dashboard',
        createdAt: at,
      });
      return row;
    });
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const orgId = this.scope(principal);
    const row = await findConnection(this.dataSource.manager, orgId, id);
    await this.dataSource.manager.delete(ConnectionRow, { id: row.id, orgId });
  }

  async history(
    principal: Principal,
    id: string,
    outcome: InboundOutcome | undefined,
    page: PageRequest,
  ): Promise<Page<RequestLogRow>> {
    const orgId = this.scope(principal);
    const row = await findConnection(this.dataSource.manager, orgId, id);
    const query = this.dataSource
      .getRepository(RequestLogRow)
      .createQueryBuilder('r')
      .where('r.orgId = :orgId AND r.connectionId = :connectionId', { orgId, connectionId: row.id });
    if (outcome && outcome !== InboundOutcome.INBOUND_OUTCOME_UNSPECIFIED)
      query.andWhere('r.outcome = :outcome', { outcome });
    return keysetPage(
      query,
      { at: 'r.createdAt', id: 'r.id' },
      (r) => ({ at: r.createdAt, id: r.id }),
      page,
      'descending',
    );
  }

  private async change(
    principal: Principal,
    id: string,
    apply: (row: ConnectionRow, at: Date) => void,
  ): Promise<ConnectionRow> {
    const orgId = this.scope(principal);
    return this.dataSource.transaction(async (manager) => {
      const row = await findConnection(manager, orgId, id);
      const at = now();
      apply(row, at);
      row.updatedAt = at;
      await manager.save(ConnectionRow, row);
      return row;
    });
  }
}

/** What a captured payload writes besides the version bump: the schema it replaces (no merge), the tunnel closed. */
export function capturedColumns(
  payload: unknown,
  at: Date,
): Pick<ConnectionRow, 'schemaFields' | 'schemaCapturedAt' | 'captureUntil' | 'updatedAt'> {
  return {
    schemaFields: JSON.stringify(inferSchema(payload)),
    schemaCapturedAt: at,
    captureUntil: null,
    updatedAt: at,
  };
}

/** A captured payload replaces the schema, bumps its version and closes the tunnel. */
export function applyCapture(row: ConnectionRow, payload: unknown, at: Date): void {
  Object.assign(row, capturedColumns(payload, at), { schemaVersion: row.schemaVersion + 1 });
}
