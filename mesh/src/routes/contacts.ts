import type { Route } from './route';

type Json = Record<string, unknown>;

/** Custom attributes travel as JSON text in the proto (a free-form object has no proto shape). */
function contactInput(input: unknown): Json {
  const { customAttributes, ...rest } = (input ?? {}) as Json;
  return customAttributes === undefined || customAttributes === null
    ? rest
    : { ...rest, customAttributesJson: JSON.stringify(customAttributes) };
}

export function contactOutput(contact: Json): Json {
  const { customAttributesJson, ...rest } = contact;
  return {
    ...rest,
    customAttributes:
      typeof customAttributesJson === 'string' && customAttributesJson ? JSON.parse(customAttributesJson) : {},
    identities: contact.identities ?? [],
  };
}

export const contactsRoutes: Record<string, Route> = {
  contactApi: { service: 'contacts', method: 'GetContact', response: contactOutput },
  contactApiByExternalId: { service: 'contacts', method: 'GetContactByExternalId', response: contactOutput },
  contactsApi: {
    service: 'contacts',
    method: 'ListContacts',
    response: (page) => ({ ...page, data: ((page.data as Json[] | undefined) ?? []).map(contactOutput) }),
  },
  isChatAppAIdEditable: {
    service: 'contacts',
    method: 'IsChatAppAIdEditable',
    response: (result) => result.editable === true,
  },
  createContactApi: {
    service: 'contacts',
    method: 'CreateContact',
    request: (a) => ({ input: contactInput(a.input) }),
    response: contactOutput,
  },
  updateContactApi: {
    service: 'contacts',
    method: 'UpdateContact',
    request: (a) => ({ id: a.id, input: contactInput(a.input) }),
    response: contactOutput,
  },
  upsertContactApi: {
    service: 'contacts',
    method: 'UpsertContact',
    request: (a) => ({ input: contactInput(a.input) }),
    response: contactOutput,
  },
};
