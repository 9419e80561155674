import type { Route } from './route';

type Json = Record<string, unknown>;

/** Values travel as JSON text in the proto (a value is a string, number, boolean or list: no one proto shape). */
export function peopleFieldValueOutput(value: Json): Json {
  const { valueJson, ...rest } = value;
  return { ...rest, value: typeof valueJson === 'string' && valueJson ? JSON.parse(valueJson) : null };
}

const definitionOutput = (definition: Json): Json => ({ ...definition, options: definition.options ?? [] });

export const contactsPeopleFieldRoutes: Record<string, Route> = {
  getPeopleFieldDefinitions: {
    service: 'contactsPeopleFields',
    method: 'ListPeopleFieldDefinitions',
    response: (list) => ((list.data as Json[] | undefined) ?? []).map(definitionOutput),
  },
  getPeopleFieldValue: {
    service: 'contactsPeopleFields',
    method: 'GetPeopleFieldValue',
    response: (found) => (found.value ? peopleFieldValueOutput(found.value as Json) : null),
  },
  getPeopleFieldValues: {
    service: 'contactsPeopleFields',
    method: 'GetPeopleFieldValues',
    response: (list) => ((list.data as Json[] | undefined) ?? []).map(peopleFieldValueOutput),
  },
  createPeopleFieldDefinition: {
    service: 'contactsPeopleFields',
    method: 'CreatePeopleFieldDefinition',
    request: (a) => ({ ...(a.input as Json) }),
    response: definitionOutput,
  },
  updatePeopleFieldDefinition: {
    service: 'contactsPeopleFields',
    method: 'UpdatePeopleFieldDefinition',
    request: (a) => {
      const input = a.input as Json;
      const hasOptions = input.options !== undefined && input.options !== null;
      return { ...input, id: a.id, hasOptions, options: hasOptions ? input.options : [] };
    },
    response: definitionOutput,
  },
  deletePeopleFieldDefinition: { service: 'contactsPeopleFields', method: 'DeletePeopleFieldDefinition' },
  setPeopleFieldValue: {
    service: 'contactsPeopleFields',
    method: 'SetPeopleFieldValue',
    request: (a) => ({ contactId: a.contactId, definitionId: a.definitionId, valueJson: JSON.stringify(a.value) }),
    response: peopleFieldValueOutput,
  },
  deletePeopleFieldValue: { service: 'contactsPeopleFields', method: 'DeletePeopleFieldValue' },
};
