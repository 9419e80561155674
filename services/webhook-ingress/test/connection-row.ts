import { newId, now } from '@svc/kit';
import { InboundAuthMode, InboundConnectionStatus, InboundIdentifierType } from '@svc/proto/webhooks/v1';
import type { ConnectionRow } from '../src/entities';

/** A connection row as the service stores it (active, EMAIL at `$.email`, no secrets), with `fields` applied. */
export function connectionRow(fields: Partial<ConnectionRow> = {}): ConnectionRow {
  const at = now();
  return {
    id: newId(at),
    orgId: newId(),
    name: 'test',
    authMode: InboundAuthMode.PAYMENTS_PROVIDER,
    secretHash: null,
    signingSecretSealed: null,
    legacySigningSecret: null,
    secretVersion: 1,
    identifierType: InboundIdentifierType.EMAIL,
    identifierPath: '$.email',
    channelIntegrationId: null,
    hmacHeader: null,
    hmacEncoding: null,
    hmacPrefix: null,
    status: InboundConnectionStatus.ACTIVE,
    schemaFields: '[]',
    schemaVersion: 0,
    schemaCapturedAt: null,
    captureUntil: null,
    createdAt: at,
    updatedAt: at,
    revision: 1,
    ...fields,
  };
}
