import { toIso } from '@svc/kit';
import { IdentifierType, type Contact } from '@svc/proto/contacts/v1';
import type { ContactRow, IdentityRow } from '../entities';

export function contactView(row: ContactRow, identities: IdentityRow[]): Contact {
  return {
    id: row.id,
    name: row.name ?? undefined,
    email: row.email ?? undefined,
    phone: row.phone ?? undefined,
    externalId: row.externalId ?? undefined,
    customAttributesJson: row.customAttributes,
    identities: identities.map((identity) => ({
      type: identity.type,
      value: identity.value,
      channelIntegrationId: identity.type === IdentifierType.CHANNEL_USER_ID ? identity.scope : undefined,
    })),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
