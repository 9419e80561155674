import { createHash } from 'node:crypto';
import { In, Not, type EntityManager } from 'typeorm';
import { Conflict, InvalidArgument, isDuplicateKeyError, newId, now, type DomainError } from '@svc/kit';
import { PeopleFieldDefinitionRow, PeopleFieldValueRow } from '../../entities';
import { coerceValue, type FieldValue, type ValueSource } from './coerce';
import { optionsOf } from './definition-rules';

/**
 * How one write treats its entries. The API rejects (the first invalid entry fails the whole write, nothing is
 * stored); the widget skips (invalid entries are left out and reported, the rest is stored).
 */
export interface ValueWriteOptions {
  /** `json`: values are typed (API); `text`: values are text to parse as the field's type (flows, widget). */
  source: ValueSource;
  onInvalid: 'reject' | 'skip';
  /** The argument an error names for a key, e.g. `customAttributes.<key>` or `value`. */
  fieldOf: (key: string) => string;
  /** The contact is being created: every required field must be given a value. */
  creating?: boolean;
}

/** An entry a `skip` write left out, and why (no value in it: reasons may be logged). */
export interface SkippedValue {
  key: string;
  reason: 'unknown_field' | 'invalid_value' | 'duplicate_value' | 'required';
}

export interface ValueWriteResult {
  /** Keys whose value was stored (inserted or replaced). */
  set: string[];
  /** Keys whose value was removed (a null in the patch). */
  removed: string[];
  skipped: SkippedValue[];
}

/** A key → value map: the shape of a contact's `customAttributes`. A null value removes the key. */
export type ValuePatch = Record<string, unknown>;

type Planned =
  | { kind: 'set'; definition: PeopleFieldDefinitionRow; value: FieldValue; uniqueKey: string | null }
  | { kind: 'remove'; definition: PeopleFieldDefinitionRow };

/** The digest that makes a unique field's value unique per org in the database (`ux_people_field_values_unique`). */
export function uniqueKeyOf(definition: PeopleFieldDefinitionRow, value: FieldValue): string | null {
  return definition.unique ? createHash('sha256').update(JSON.stringify(value)).digest('hex') : null;
}

class Invalid {
  constructor(
    readonly skipped: SkippedValue,
    readonly error: DomainError,
  ) {}
}

async function plan(
  manager: EntityManager,
  orgId: string,
  contactId: string,
  definitions: Map<string, PeopleFieldDefinitionRow>,
  key: string,
  raw: unknown,
  options: ValueWriteOptions,
): Promise<Planned | Invalid> {
  const field = options.fieldOf(key);
  const definition = definitions.get(key);
  if (!definition)
    return new Invalid(
      { key, reason: 'unknown_field' },
      new InvalidArgument(`${field} is not a people field of this org`, { field }),
    );
  if (raw === null || raw === undefined) {
    if (definition.required)
      return new Invalid(
        { key, reason: 'required' },
        new InvalidArgument(`${field} names a required people field: its value cannot be removed`, { field }),
      );
    return { kind: 'remove', definition };
  }
  const coerced = coerceValue({ type: definition.type, options: optionsOf(definition) }, raw, options.source);
  if (!coerced.ok)
    return new Invalid({ key, reason: 'invalid_value' }, new InvalidArgument(`${field} ${coerced.reason}`, { field }));
  const uniqueKey = uniqueKeyOf(definition, coerced.value);
  if (
    uniqueKey &&
    (await manager.existsBy(PeopleFieldValueRow, {
      orgId,
      definitionId: definition.id,
      uniqueKey,
      contactId: Not(contactId),
    }))
  )
    return new Invalid(
      { key, reason: 'duplicate_value' },
      new Conflict(`${field} is unique and another contact has this value`, { field }),
    );
  return { kind: 'set', definition, value: coerced.value, uniqueKey };
}

/**
 * THE write of people field values (docs/decisions/0150): every writer of a contact's attributes — the contacts API's
 * `customAttributes`, `setPeopleFieldValue`, flows' "set a contact attribute" step, the widget's profile `attributes`
 * — goes through here, so every value is validated against its definition the same way. Runs inside the caller's
 * transaction; the caller has checked that the contact is the org's and emits `contact.updated`.
 */
export async function writePeopleFieldValues(
  manager: EntityManager,
  orgId: string,
  contactId: string,
  patch: ValuePatch,
  options: ValueWriteOptions,
): Promise<ValueWriteResult> {
  const result: ValueWriteResult = { set: [], removed: [], skipped: [] };
  const keys = Object.keys(patch);
  if (!keys.length && !options.creating) return result;
  const definitions = new Map(
    (
      await manager.find(PeopleFieldDefinitionRow, {
        where: options.creating ? { orgId } : { orgId, key: In(keys) },
      })
    ).map((definition) => [definition.key, definition]),
  );
  const planned: Planned[] = [];
  const consider = (entry: Planned | Invalid): void => {
    if (!(entry instanceof Invalid)) planned.push(entry);
    else if (options.onInvalid === 'reject') throw entry.error;
    else result.skipped.push(entry.skipped);
  };
  for (const key of keys) consider(await plan(manager, orgId, contactId, definitions, key, patch[key], options));
  if (options.creating)
    for (const definition of definitions.values())
      if (definition.required && !(definition.key in patch))
        consider(new Invalid({ key: definition.key, reason: 'required' }, requiredError(options, definition.key)));
  await apply(manager, orgId, contactId, planned, result, options.fieldOf);
  return result;
}

function requiredError(options: ValueWriteOptions, key: string): DomainError {
  const field = options.fieldOf(key);
  return new InvalidArgument(`${field} is required`, { field });
}

async function apply(
  manager: EntityManager,
  orgId: string,
  contactId: string,
  planned: Planned[],
  result: ValueWriteResult,
  fieldOf: (key: string) => string,
): Promise<void> {
  if (!planned.length) return;
  const at = now();
  const existing = new Map(
    (
      await manager.findBy(PeopleFieldValueRow, {
        orgId,
        contactId,
        definitionId: In(planned.map((entry) => entry.definition.id)),
      })
    ).map((row) => [row.definitionId, row]),
  );
  for (const entry of planned) {
    const row = existing.get(entry.definition.id);
    if (entry.kind === 'remove') {
      if (row) await manager.delete(PeopleFieldValueRow, { id: row.id, orgId });
      result.removed.push(entry.definition.key);
      continue;
    }
    const value = JSON.stringify(entry.value);
    try {
      if (row)
        await manager.update(
          PeopleFieldValueRow,
          { id: row.id, orgId },
          { value, uniqueKey: entry.uniqueKey, updatedAt: at },
        );
      else
        await manager.insert(PeopleFieldValueRow, {
          id: newId(at),
          orgId,
          contactId,
          definitionId: entry.definition.id,
          value,
          uniqueKey: entry.uniqueKey,
          createdAt: at,
          updatedAt: at,
        });
    } catch (error) {
      // A concurrent write got there between the check and this one: the unique indexes decide (decision 0151).
      if (!isDuplicateKeyError(error)) throw error;
      const field = fieldOf(entry.definition.key);
      throw new Conflict(`${field} was written concurrently with a conflicting value; try again`, { field });
    }
    result.set.push(entry.definition.key);
  }
}
