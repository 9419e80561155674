import { toIso } from '@svc/kit';
import { IdentifierType, type Contact } from '@svc/proto/contacts/v1';
import type { ContactRow, IdentityRow } from '../entities';
import type { AttributeMap } from './people-fields';

/** A contact as the API answers it; `customAttributes` is its people field values by key. */
export function contactView(row: ContactRow, identities: IdentityRow[], attributes: AttributeMap): Contact {
  return {
    id: row.id,
    name: row.name ?? undefined,
    email: row.email ?? undefined,
    phone: row.phone ?? undefined,
    externalId: row.externalId ?? undefined,
    customAttributesJson: JSON.stringify(attributes),
    identities: identities.map((identity) => ({
      type: identity.type,
      value: identity.value,
      channelIntegrationId: identity.type === IdentifierType.CHANNEL_USER_ID ? identity.scope : undefined,
    })),
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}
