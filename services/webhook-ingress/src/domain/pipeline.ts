import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { DataSource } from 'typeorm';
import { JSONPath } from 'jsonpath-plus';
import { entitySql, isId, newId, now, type Logger, type PreparedSelect } from '@svc/kit';
import {
  InboundAuthMode,
  InboundConnectionStatus,
  type InboundIdentifierType,
  InboundOutcome,
} from '@svc/proto/webhooks/v1';
import { authenticate, providerIdempotencyKey } from '../auth/authenticate';
import { VerificationBusy } from '../auth/bcrypt-slots';
import type { HeaderReader } from '../auth/hmac';
import type { SharedSecretVerifier } from '../auth/shared-secret';
import { ConnectionRow, IdempotencyKeyRow, type RequestLogRow } from '../entities';
import type { SigningSecrets } from '../secrets/signing-secrets';
import { capturedColumns } from './connections';
import { webhookReceivedEvent } from './events';
import { idempotencyCutoff, type GroupCommit } from './group-commit';
import { scrubHeaders } from './scrub';
import { ServingConnections, type ServingConnection } from './serving-connections';
import { urlVerificationChallenge } from './url-verification';

/** What an idempotency key keeps of the first request: enough to answer a replay as it was answered. */
type StoredResponse = Pick<IdempotencyKeyRow, 'outcome' | 'httpStatus' | 'responseBody' | 'createdAt'>;

/** Spec 8: at most 100 KB. */
export const MAX_BODY_BYTES = 100 * 1024;

/**
 * How much of a body is read at most: a body over MAX_BODY_BYTES is still read up to here, so its signature is
 * checked before the size rule (spec 4.5: authentication first); beyond it only the headers are (decision 0044).
 */
export const READ_CAP_BYTES = 1024 * 1024;

export const STATUS_OF: Record<InboundOutcome, number> = {
  [InboundOutcome.ACCEPTED]: 202,
  [InboundOutcome.SAMPLE_CAPTURED]: 202,
  [InboundOutcome.UNAUTHORIZED]: 401,
  [InboundOutcome.INVALID_JSON]: 400,
  [InboundOutcome.PAYLOAD_TOO_LARGE]: 413,
  [InboundOutcome.IDENTIFIER_NOT_FOUND]: 422,
  [InboundOutcome.TRIGGER_NOT_FOUND]: 404,
  [InboundOutcome.ERROR]: 500,
  [InboundOutcome.URL_VERIFIED]: 200,
  [InboundOutcome.INBOUND_OUTCOME_UNSPECIFIED]: 500,
  [InboundOutcome.UNRECOGNIZED]: 500,
};

export interface InboundHttpRequest {
  connectionId: string;
  headers: IncomingHttpHeaders;
  /** The raw body, or undefined when it exceeded READ_CAP_BYTES (reading stopped there). */
  body: Buffer | undefined;
}

export interface InboundHttpResponse {
  status: number;
  /** What the history row records (the body of a URL verification carries only the challenge). */
  outcome: InboundOutcome;
  body: Record<string, unknown>;
  /** Extra response headers: `Retry-After` when the failure is worth retrying shortly. */
  headers?: Record<string, string>;
}

export interface Resolvers {
  lookupContact(
    orgId: string,
    type: InboundIdentifierType,
    value: string,
    channelIntegrationId: string | null,
  ): Promise<{ contactId: string; latestChatId: string } | undefined>;
  webhookFlows(orgId: string, connectionId: string): Promise<{ flowId: string; name: string }[]>;
}

interface Outcome {
  outcome: InboundOutcome;
  detail?: string;
  contactId?: string;
  flows?: { flowId: string; name: string }[];
  replayOf?: StoredResponse;
  /** Not a verdict on the credentials: bcrypt was saturated, the sender should retry (ERROR + Retry-After). */
  busy?: boolean;
  /** The history row was written with the commit. */
  logged?: boolean;
  /** URL_VERIFIED: the team-chat provider's challenge, echoed in the answer. */
  challenge?: string;
}

const MESSAGES: Partial<Record<InboundOutcome, string>> = {
  [InboundOutcome.UNAUTHORIZED]: 'The secret or signature does not verify.',
  [InboundOutcome.INVALID_JSON]: 'The body is not valid JSON.',
  [InboundOutcome.PAYLOAD_TOO_LARGE]: 'The body is larger than 100 KB.',
  [InboundOutcome.IDENTIFIER_NOT_FOUND]: 'No contact matches the identifier in the payload.',
  [InboundOutcome.TRIGGER_NOT_FOUND]: 'No active connection with a published flow trigger at this URL.',
  [InboundOutcome.ERROR]: 'Unexpected error.',
};

const BUSY_MESSAGE = 'Secret verification is busy; retry in a second.';

function firstIdentifier(path: string, payload: unknown): string | undefined {
  if (payload === null || typeof payload !== 'object') return undefined;
  let values: unknown[];
  try {
    values = JSONPath({ path, json: payload as object, wrap: true }) as unknown[];
  } catch {
    return undefined;
  }
  const value = values[0];
  if (typeof value === 'string' && value.trim()) return value.trim();
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function idempotencyId(connectionId: string, key: string): string {
  return createHash('sha256').update(`${connectionId}:${key}`).digest('hex');
}

/**
 * The public endpoint's pipeline in spec 4.5 order — route → verify → size → parse → capture → resolve → triggers →
 * dispatch — writing exactly one history row per request. Accepted requests commit their history row, their
 * idempotency record and their `webhook.received` event in one transaction (the outbox relays it with acks from all
 * replicas) before they are answered, so nothing accepted is lost and a concurrent duplicate key never dispatches
 * twice. Transactions are shared by concurrent requests (group commit, docs/decisions/0015).
 */
export class InboundPipeline {
  private readonly connections: ServingConnections;
  private readonly storedResponses: PreparedSelect<StoredResponse>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly commits: GroupCommit,
    private readonly sharedSecrets: SharedSecretVerifier,
    private readonly signingSecrets: SigningSecrets,
    private readonly resolvers: Resolvers,
    private readonly logger: Logger,
  ) {
    this.connections = new ServingConnections(dataSource);
    const keys = entitySql(dataSource, IdempotencyKeyRow);
    this.storedResponses = keys.prepareSelect(
      ['outcome', 'httpStatus', 'responseBody', 'createdAt'],
      `WHERE ${keys.column('id')} = ?`,
    );
  }

  /** The response stored under the connection's idempotency key, if any (expired or not). */
  private async storedResponse(connectionId: string, key: string): Promise<StoredResponse | undefined> {
    const [stored] = await this.storedResponses.all(this.dataSource.manager, [idempotencyId(connectionId, key)]);
    return stored;
  }

  async handle(request: InboundHttpRequest): Promise<InboundHttpResponse> {
    const requestLogId = newId();
    const header: HeaderReader = (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    let connection: ServingConnection | null = null;
    let key: string | undefined;
    let result: Outcome;
    try {
      connection = isId(request.connectionId) ? await this.connections.get(request.connectionId) : null;
      const explicitKey = header('x-idempotency-key')?.slice(0, 255) || undefined;
      key = explicitKey ?? (connection ? providerIdempotencyKey(connection, header) : undefined);
      result = await this.decide(request, connection, header, requestLogId, key);
    } catch (error) {
      this.logger.error({ err: error, connectionId: request.connectionId }, 'inbound webhook failed');
      result = { outcome: InboundOutcome.ERROR };
    }
    const replay = result.replayOf;
    const status = replay ? replay.httpStatus : STATUS_OF[result.outcome];
    const body = replay
      ? (JSON.parse(replay.responseBody) as Record<string, unknown>)
      : responseBody(requestLogId, result);
    const headers = result.busy ? { 'retry-after': '1' } : undefined;
    if (!result.logged) {
      await this.commits
        .commit({ log: logRow(requestLogId, request, connection, header, key, result, status) })
        .catch((error: unknown) => this.logger.error({ err: error }, 'could not write the inbound history row'));
    }
    return { status, outcome: replay ? replay.outcome : result.outcome, body, headers };
  }

  private async decide(
    request: InboundHttpRequest,
    connection: ServingConnection | null,
    header: HeaderReader,
    requestLogId: string,
    key: string | undefined,
  ): Promise<Outcome> {
    if (!connection || connection.status === InboundConnectionStatus.PAUSED)
      return {
        outcome: InboundOutcome.TRIGGER_NOT_FOUND,
        detail: connection ? 'connection is paused' : 'no such connection',
      };
    // A secret no configured key opens throws: a server-side fault (500 ERROR, logged), not the sender's (401).
    const signingSecret =
      connection.authMode === InboundAuthMode.SHARED_SECRET ? undefined : this.signingSecrets.reveal(connection);
    let authenticated: boolean;
    try {
      authenticated = await authenticate(connection, header, request.body, this.sharedSecrets, signingSecret);
    } catch (error) {
      if (!(error instanceof VerificationBusy)) throw error;
      this.logger.warn({ connectionId: connection.id }, 'shared secret verification busy; asked the sender to retry');
      return {
        outcome: InboundOutcome.ERROR,
        busy: true,
        detail: 'shared secret verification busy (bcrypt saturated)',
      };
    }
    if (!authenticated) return { outcome: InboundOutcome.UNAUTHORIZED };
    if (!request.body)
      return {
        outcome: InboundOutcome.PAYLOAD_TOO_LARGE,
        detail: 'beyond the read cap: only the headers were checked',
      };
    if (request.body.length > MAX_BODY_BYTES) return { outcome: InboundOutcome.PAYLOAD_TOO_LARGE };
    if (key) {
      const cached = await this.storedResponse(connection.id, key);
      // A key older than the window is a new request (decision 0012), even before the retention job deletes it.
      if (cached && cached.createdAt >= idempotencyCutoff(now()))
        return { outcome: cached.outcome, replayOf: cached, detail: 'idempotent replay' };
    }
    const contentType = header('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/json')
      return { outcome: InboundOutcome.INVALID_JSON, detail: 'Content-Type must be application/json' };
    let payload: unknown;
    const payloadJson = request.body.toString('utf8');
    try {
      payload = JSON.parse(payloadJson);
    } catch {
      return { outcome: InboundOutcome.INVALID_JSON };
    }
    // Before capture: the handshake is no event, and the tunnel stays open for the first one.
    const challenge =
      connection.authMode === InboundAuthMode.TEAM_CHAT_PROVIDER ? urlVerificationChallenge(payload) : undefined;
    if (challenge !== undefined)
      return { outcome: InboundOutcome.URL_VERIFIED, challenge, detail: 'url_verification handshake answered' };
    if (connection.captureUntil && connection.captureUntil > new Date() && (await this.capture(connection, payload)))
      return this.commit(
        connection,
        request,
        header,
        requestLogId,
        key,
        { outcome: InboundOutcome.SAMPLE_CAPTURED },
        undefined,
      );
    const identifier = firstIdentifier(connection.identifierPath, payload);
    const contact = identifier
      ? await this.resolvers.lookupContact(
          connection.orgId,
          connection.identifierType,
          identifier,
          connection.channelIntegrationId,
        )
      : undefined;
    if (!contact)
      return {
        outcome: InboundOutcome.IDENTIFIER_NOT_FOUND,
        detail: identifier ? 'no contact matches the identifier' : 'the identifier path yields nothing',
      };
    const flows = await this.resolvers.webhookFlows(connection.orgId, connection.id);
    if (!flows.length)
      return { outcome: InboundOutcome.TRIGGER_NOT_FOUND, contactId: contact.contactId, detail: 'no published flow' };
    return this.commit(
      connection,
      request,
      header,
      requestLogId,
      key,
      { outcome: InboundOutcome.ACCEPTED, contactId: contact.contactId, flows },
      { chatId: contact.latestChatId, payloadJson },
    );
  }

  /** Closes the tunnel for exactly one payload: the conditional update lets only one concurrent request win. */
  private async capture(connection: ServingConnection, payload: unknown): Promise<boolean> {
    const at = now();
    const result = await this.dataSource
      .createQueryBuilder()
      .update(ConnectionRow)
      .set({ ...capturedColumns(payload, at), schemaVersion: () => 'schema_version + 1' })
      .where('id = :id AND capture_until > :at', { id: connection.id, at })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Commits an accepted or captured request: history row, idempotency record and (accepted) the event, together,
   * and returns once they are durable. If a concurrent twin committed the same idempotency key first, this one wrote
   * nothing and replays the twin's response instead.
   */
  private async commit(
    connection: ServingConnection,
    request: InboundHttpRequest,
    header: HeaderReader,
    requestLogId: string,
    key: string | undefined,
    outcome: Outcome,
    dispatch: { chatId: string; payloadJson: string } | undefined,
  ): Promise<Outcome> {
    const status = STATUS_OF[outcome.outcome];
    const at = now();
    const result = await this.commits.commit({
      log: logRow(requestLogId, request, connection, header, key, outcome, status, at),
      idempotency: key
        ? {
            id: idempotencyId(connection.id, key),
            connectionId: connection.id,
            outcome: outcome.outcome,
            httpStatus: status,
            responseBody: JSON.stringify(responseBody(requestLogId, outcome)),
            createdAt: at,
          }
        : undefined,
      event:
        dispatch && outcome.contactId && outcome.flows
          ? webhookReceivedEvent({
              orgId: connection.orgId,
              requestId: requestLogId,
              connectionId: connection.id,
              contactId: outcome.contactId,
              chatId: dispatch.chatId,
              payloadJson: dispatch.payloadJson,
              flowIds: outcome.flows.map((f) => f.flowId),
            })
          : undefined,
    });
    if (result === 'committed') return { ...outcome, logged: true };
    const winner = key ? await this.storedResponse(connection.id, key) : undefined;
    if (!winner) throw new Error('idempotency key reported as taken but not found');
    return { outcome: winner.outcome, replayOf: winner, detail: 'idempotent replay (concurrent)' };
  }
}

function logRow(
  id: string,
  request: InboundHttpRequest,
  connection: ServingConnection | null,
  header: HeaderReader,
  key: string | undefined,
  result: Outcome,
  status: number,
  at = now(),
): RequestLogRow {
  return {
    id,
    orgId: connection?.orgId ?? '',
    connectionId: isId(request.connectionId) ? request.connectionId : '',
    requestId: header('x-request-id')?.slice(0, 128) ?? null,
    idempotencyKey: key ?? null,
    outcome: result.outcome,
    httpStatus: status,
    headers: JSON.stringify(scrubHeaders(request.headers, connection?.hmacHeader ?? null)),
    contactId: result.contactId ?? null,
    flowIds: JSON.stringify(result.replayOf ? [] : (result.flows ?? []).map((f) => f.flowId)),
    replay: result.replayOf !== undefined,
    detail: result.detail?.slice(0, 500) ?? null,
    createdAt: at,
  };
}

function responseBody(requestLogId: string, result: Outcome): Record<string, unknown> {
  const outcome = InboundOutcome[result.outcome] ? result.outcome : InboundOutcome.ERROR;
  if (outcome === InboundOutcome.ACCEPTED)
    return {
      requestId: requestLogId,
      outcome,
      flows: (result.flows ?? []).map((f) => ({ id: f.flowId, name: f.name })),
    };
  if (outcome === InboundOutcome.SAMPLE_CAPTURED) return { requestId: requestLogId, outcome, flows: [] };
  if (outcome === InboundOutcome.URL_VERIFIED) return { challenge: result.challenge };
  if (result.busy) return { requestId: requestLogId, outcome, message: BUSY_MESSAGE };
  return { requestId: requestLogId, outcome, message: MESSAGES[outcome] ?? 'Unexpected error.' };
}
