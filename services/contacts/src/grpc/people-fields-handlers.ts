import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { PeopleFieldsServiceService } from '@svc/proto/contacts/v1/people_fields';
import type { PeopleFieldDefinitions } from '../domain/people-fields/definitions';
import type { PeopleFieldValues, StoredValue } from '../domain/people-fields/values';
import { definitionView, valueView } from '../domain/people-fields/views';

const view = ({ row, definition }: StoredValue) => valueView(row, definition);

export function peopleFieldsService(
  domain: { definitions: PeopleFieldDefinitions; values: PeopleFieldValues },
  deps: ImplementDeps,
) {
  const { definitions, values } = domain;
  const handlers: ServiceHandlers<typeof PeopleFieldsServiceService> = {
    listPeopleFieldDefinitions: async (_request, { principal }) => ({
      data: (await definitions.list(principal)).map(definitionView),
    }),
    createPeopleFieldDefinition: async (request, { principal }) =>
      definitionView(await definitions.create(principal, request)),
    updatePeopleFieldDefinition: async (request, { principal }) =>
      definitionView(await definitions.update(principal, request)),
    deletePeopleFieldDefinition: async (request, { principal }) => ({
      id: request.id,
      valuesRemoved: await definitions.delete(principal, request.id),
    }),
    getPeopleFieldValue: async (request, { principal }) => {
      const found = await values.get(principal, request.contactId, request.definitionId);
      return { value: found ? view(found) : undefined };
    },
    getPeopleFieldValues: async (request, { principal }) => ({
      data: (await values.list(principal, request.contactId)).map(view),
    }),
    setPeopleFieldValue: async (request, { principal }) =>
      view(await values.set(principal, request.contactId, request.definitionId, request.valueJson)),
    deletePeopleFieldValue: async (request, { principal }) => ({
      deleted: await values.delete(principal, request.contactId, request.definitionId),
    }),
  };
  return implement('contacts', PeopleFieldsServiceService, handlers, deps);
}
