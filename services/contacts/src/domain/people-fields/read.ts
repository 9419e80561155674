import { In, type EntityManager } from 'typeorm';
import { PeopleFieldDefinitionRow, PeopleFieldValueRow } from '../../entities';
import type { FieldValue } from './coerce';

/** A contact's people field values as its `customAttributes`: definition key → value. */
export type AttributeMap = Record<string, FieldValue>;

/** Each contact's attributes (an empty map for a contact without values), in two queries whatever the count. */
export async function readAttributes(
  manager: EntityManager,
  orgId: string,
  contactIds: readonly string[],
): Promise<Map<string, AttributeMap>> {
  const maps = new Map(contactIds.map((id) => [id, {} as AttributeMap]));
  if (!contactIds.length) return maps;
  const values = await manager.find(PeopleFieldValueRow, {
    where: { orgId, contactId: In([...maps.keys()]) },
    order: { createdAt: 'ASC', id: 'ASC' },
  });
  if (!values.length) return maps;
  const keys = new Map(
    (
      await manager.findBy(PeopleFieldDefinitionRow, { orgId, id: In([...new Set(values.map((v) => v.definitionId))]) })
    ).map((definition) => [definition.id, definition.key]),
  );
  for (const value of values) {
    const key = keys.get(value.definitionId);
    const map = maps.get(value.contactId);
    if (key && map) map[key] = JSON.parse(value.value) as FieldValue;
  }
  return maps;
}

/** How many people field values a contact has (the erasure's `field_values`). */
export function countContactValues(manager: EntityManager, orgId: string, contactId: string): Promise<number> {
  return manager.countBy(PeopleFieldValueRow, { orgId, contactId });
}

/** Removes every people field value of a contact (its erasure); answers how many there were. */
export async function deleteContactValues(manager: EntityManager, orgId: string, contactId: string): Promise<number> {
  const result = await manager.delete(PeopleFieldValueRow, { orgId, contactId });
  return result.affected ?? 0;
}
