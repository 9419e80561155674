import { toIso } from '@svc/kit';
import type { PeopleFieldDefinition, PeopleFieldValue } from '@svc/proto/contacts/v1/people_fields';
import type { PeopleFieldDefinitionRow, PeopleFieldValueRow } from '../../entities';
import { optionsOf } from './definition-rules';

export function definitionView(row: PeopleFieldDefinitionRow): PeopleFieldDefinition {
  return {
    id: row.id,
    key: row.key,
    label: row.label,
    type: row.type,
    options: optionsOf(row),
    required: row.required,
    unique: row.unique,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

export function valueView(row: PeopleFieldValueRow, definition: PeopleFieldDefinitionRow): PeopleFieldValue {
  return {
    contactId: row.contactId,
    definitionId: definition.id,
    key: definition.key,
    type: definition.type,
    valueJson: row.value,
    updatedAt: toIso(row.updatedAt),
  };
}
