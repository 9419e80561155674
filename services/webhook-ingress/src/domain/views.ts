import { toIso, toIsoOrUndefined } from '@svc/kit';
import {
  InboundAuthMode,
  type InboundConnection,
  type InboundRequest,
  type PayloadSchemaField,
} from '@svc/proto/webhooks/v1';
import type { ConnectionRow, RequestLogRow } from '../entities';

export function urlPathOf(connectionId: string): string {
  return `/webhooks/in/${connectionId}`;
}

/** A connection as the API shows it: the stored secrets never leave; `secret` is set only by create and rotate. */
export function connectionView(row: ConnectionRow, secret?: string): InboundConnection {
  return {
    _id: row.id,
    name: row.name,
    authMode: row.authMode,
    secret,
    hasSigningSecret:
      row.authMode === InboundAuthMode.SHARED_SECRET
        ? !!row.secretHash
        : !!(row.signingSecretSealed ?? row.legacySigningSecret),
    identifierType: row.identifierType,
    identifierPath: row.identifierPath,
    channelIntegrationId: row.channelIntegrationId ?? undefined,
    genericHmac:
      row.hmacHeader && row.hmacEncoding
        ? { headerName: row.hmacHeader, encoding: row.hmacEncoding, prefix: row.hmacPrefix ?? undefined }
        : undefined,
    status: row.status,
    payloadSchema: {
      version: row.schemaVersion,
      fields: JSON.parse(row.schemaFields) as PayloadSchemaField[],
      capturedAt: toIsoOrUndefined(row.schemaCapturedAt),
    },
    captureOpenUntil: row.captureUntil && row.captureUntil > new Date() ? toIso(row.captureUntil) : undefined,
    urlPath: urlPathOf(row.id),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

export function requestView(row: RequestLogRow): InboundRequest {
  return {
    _id: row.id,
    connectionId: row.connectionId,
    requestId: row.requestId ?? undefined,
    idempotencyKey: row.idempotencyKey ?? undefined,
    outcome: row.outcome,
    httpStatus: row.httpStatus,
    headersJson: row.headers,
    contactId: row.contactId ?? undefined,
    flowIds: JSON.parse(row.flowIds) as string[],
    replay: row.replay,
    detail: row.detail ?? undefined,
    createdAt: toIso(row.createdAt),
  };
}
