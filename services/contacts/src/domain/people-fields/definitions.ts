import type { DataSource, EntityManager } from 'typeorm';
import {
  Conflict,
  FailedPrecondition,
  InvalidArgument,
  NotFound,
  isId,
  newId,
  now,
  requireOrg,
  requireScope,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type {
  CreatePeopleFieldDefinitionRequest,
  UpdatePeopleFieldDefinitionRequest,
} from '@svc/proto/contacts/v1/people_fields';
import { PeopleFieldDefinitionRow, PeopleFieldValueRow } from '../../entities';
import type { PeopleFieldType } from '../../entities/people-field';
import { coerceValue, valueAsText, type FieldShape, type FieldValue } from './coerce';
import {
  CHOICE_TYPES,
  MAX_DEFINITIONS_PER_ORG,
  checkKey,
  checkLabel,
  checkOptions,
  checkType,
  checkUnique,
  optionsOf,
} from './definition-rules';
import { uniqueKeyOf } from './write';

/** A definition of the org, or NOT_FOUND naming `field` (also for another org's: no existence oracle). */
export async function findDefinition(
  manager: EntityManager,
  orgId: string,
  id: string,
  field = 'id',
): Promise<PeopleFieldDefinitionRow> {
  if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  const row = await manager.findOneBy(PeopleFieldDefinitionRow, { id, orgId });
  if (!row) throw new NotFound(`${field} names no people field of this org`, { field });
  return row;
}

/** What a change of type or options does to one stored value: kept as it was, converted, or invalid. */
type Conversion = { row: PeopleFieldValueRow; value: FieldValue | undefined; changed: boolean };

/**
 * Each stored value under the new shape (docs/decisions/0152): the same type re-checks the stored value (an option
 * removed makes it invalid); another type parses the value's text form as the new type ("42" → 42, "pro" → ["pro"]).
 */
function convert(rows: PeopleFieldValueRow[], from: PeopleFieldType, to: FieldShape): Conversion[] {
  return rows.map((row) => {
    const stored = JSON.parse(row.value) as FieldValue;
    const coerced = from === to.type ? coerceValue(to, stored, 'json') : coerceValue(to, valueAsText(stored), 'text');
    if (!coerced.ok) return { row, value: undefined, changed: true };
    return { row, value: coerced.value, changed: JSON.stringify(coerced.value) !== row.value };
  });
}

export class PeopleFieldDefinitions {
  constructor(private readonly dataSource: DataSource) {}

  async list(principal: Principal): Promise<PeopleFieldDefinitionRow[]> {
    requireScope(principal, ApiScope.CONTACTS_READ);
    return this.dataSource.manager.find(PeopleFieldDefinitionRow, {
      where: { orgId: requireOrg(principal) },
      order: { createdAt: 'ASC', id: 'ASC' },
      take: MAX_DEFINITIONS_PER_ORG,
    });
  }

  async create(principal: Principal, input: CreatePeopleFieldDefinitionRequest): Promise<PeopleFieldDefinitionRow> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    const key = checkKey(input.key);
    const label = checkLabel(input.label);
    const type = checkType(input.type);
    const options = checkOptions(type, input.options);
    const unique = checkUnique(type, input.unique ?? false);
    return this.dataSource.transaction(async (manager) => {
      if (await manager.existsBy(PeopleFieldDefinitionRow, { orgId, key }))
        throw new Conflict('the org already has a people field with this key', { field: 'key' });
      if ((await manager.countBy(PeopleFieldDefinitionRow, { orgId })) >= MAX_DEFINITIONS_PER_ORG)
        throw new FailedPrecondition(`an org has at most ${MAX_DEFINITIONS_PER_ORG} people fields`, { field: 'key' });
      const at = now();
      const row = manager.create(PeopleFieldDefinitionRow, {
        id: newId(at),
        orgId,
        key,
        label,
        type,
        options: JSON.stringify(options),
        required: input.required ?? false,
        unique,
        createdAt: at,
        updatedAt: at,
      });
      await manager.insert(PeopleFieldDefinitionRow, row);
      return row;
    });
  }

  async update(principal: Principal, input: UpdatePeopleFieldDefinitionRequest): Promise<PeopleFieldDefinitionRow> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    return this.dataSource.transaction(async (manager) => {
      const row = await findDefinition(manager, orgId, input.id);
      const type = input.type === undefined ? row.type : checkType(input.type);
      // A choice type keeps its options unless new ones are given; another type has none.
      const options = input.hasOptions
        ? checkOptions(type, input.options)
        : CHOICE_TYPES.includes(type)
          ? checkOptions(type, optionsOf(row))
          : [];
      const unique = checkUnique(type, input.unique ?? row.unique);
      const next = {
        label: input.label === undefined ? row.label : checkLabel(input.label),
        type,
        options: JSON.stringify(options),
        required: input.required ?? row.required,
        unique,
        updatedAt: now(),
      };
      const reshaped = type !== row.type || next.options !== row.options;
      if (reshaped || unique !== row.unique)
        await this.reshapeValues(manager, row, { ...row, ...next }, input.removeInvalidValues ?? false, {
          field: type !== row.type ? 'type' : 'options',
        });
      await manager.update(PeopleFieldDefinitionRow, { id: row.id, orgId }, next);
      return Object.assign(row, next);
    });
  }

  /**
   * Brings the stored values to the definition's new shape: converted where they convert; where some do not, the
   * change is refused (FAILED_PRECONDITION naming the field, with how many) unless `removeInvalid` says to remove
   * them. A field made unique while two contacts share a value is CONFLICT naming `unique`.
   */
  private async reshapeValues(
    manager: EntityManager,
    before: PeopleFieldDefinitionRow,
    after: PeopleFieldDefinitionRow,
    removeInvalid: boolean,
    { field }: { field: string },
  ): Promise<void> {
    const rows = await manager.findBy(PeopleFieldValueRow, { orgId: before.orgId, definitionId: before.id });
    const conversions = convert(rows, before.type, { type: after.type, options: optionsOf(after) });
    const invalid = conversions.filter((c) => c.value === undefined);
    if (invalid.length && !removeInvalid)
      throw new FailedPrecondition(
        `${invalid.length} stored value(s) of this field are not valid under the change; ` +
          'set removeInvalidValues to remove them',
        { field },
      );
    const kept = conversions.flatMap((c) =>
      c.value === undefined ? [] : [{ ...c, uniqueKey: uniqueKeyOf(after, c.value) }],
    );
    if (after.unique) {
      const keys = kept.map((c) => c.uniqueKey);
      if (new Set(keys).size !== keys.length)
        throw new Conflict('contacts share values of this field, so it cannot be unique', { field: 'unique' });
    }
    const at = now();
    for (const { row } of invalid) await manager.delete(PeopleFieldValueRow, { id: row.id, orgId: row.orgId });
    // Unique digests are cleared first, so swapping values between contacts never trips the unique index midway.
    if (before.unique)
      await manager.update(PeopleFieldValueRow, { orgId: before.orgId, definitionId: before.id }, { uniqueKey: null });
    for (const c of kept)
      if (c.changed || c.uniqueKey !== null)
        await manager.update(
          PeopleFieldValueRow,
          { id: c.row.id, orgId: c.row.orgId },
          { value: JSON.stringify(c.value), uniqueKey: c.uniqueKey, ...(c.changed ? { updatedAt: at } : {}) },
        );
  }

  /** Deletes the definition and every value of it; answers how many values went. */
  async delete(principal: Principal, id: string): Promise<number> {
    requireScope(principal, ApiScope.CONTACTS_MANAGE);
    const orgId = requireOrg(principal);
    return this.dataSource.transaction(async (manager) => {
      const row = await findDefinition(manager, orgId, id);
      const removed = await manager.delete(PeopleFieldValueRow, { orgId, definitionId: row.id });
      await manager.delete(PeopleFieldDefinitionRow, { id: row.id, orgId });
      return removed.affected ?? 0;
    });
  }
}
