// Written by hand (not a migration: the migrations of each family call it). Moves the free-form custom attributes
// stored on `contacts.custom_attributes` (a JSON object as text) into people field definitions and values, before the
// generated migration drops the column (docs/decisions/0157). Plain SQL on the query runner, never the entities, so
// that later entity changes cannot alter what this migration did. Identifiers are back-quoted: `key` and `unique`
// are reserved words in MySQL, and SQLite accepts the same quoting.
import type { QueryRunner } from 'typeorm';
import { newId } from '@svc/kit';

const CONTACTS_PER_BATCH = 1_000;
/** Rows per INSERT: 8 values each, under SQLite's and MySQL's bound-parameter limits. */
const ROWS_PER_INSERT = 500;
const KEY = /^[a-z][a-z0-9_]{0,63}$/;
const KEY_MAX = 64;
const LABEL_MAX = 200;

type FieldType = 'TEXT' | 'NUMBER' | 'BOOLEAN';

interface StoredContact {
  id: string;
  org_id: string;
  custom_attributes: string | null;
  updated_at: unknown;
}

interface Definition {
  id: string;
  key: string;
  type: FieldType;
}

/** The attributes of one stored contact; anything that is not a JSON object holds none. */
function attributesOf(contact: StoredContact): [string, unknown][] {
  try {
    const parsed: unknown = JSON.parse(contact.custom_attributes ?? '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
    return Object.entries(parsed).filter(([, value]) => value !== null && value !== undefined);
  } catch {
    return [];
  }
}

/** A field's type from every value stored under its key in the org: booleans only, numbers only, else text. */
function typeOf(kinds: Set<string>): FieldType {
  if (kinds.size === 1 && kinds.has('boolean')) return 'BOOLEAN';
  if (kinds.size === 1 && kinds.has('number')) return 'NUMBER';
  return 'TEXT';
}

/** The stored value in its field's canonical form: text keeps strings, writes numbers and booleans, and JSON for the rest. */
function valueOf(type: FieldType, value: unknown): unknown {
  if (type !== 'TEXT') return value;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * A definition key for an attribute name: the name itself when it is a valid key, else a slug of it (lower case,
 * `_` for anything else, `f_` in front when it does not start with a letter), made unique in the org with `_2`, `_3`…
 * The name itself is kept as the label, so nothing of it is lost.
 */
export function keyFor(name: string, taken: Set<string>): string {
  let base = name;
  if (!KEY.test(base)) {
    base = name
      .toLowerCase()
      .replace(/[^a-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '');
    if (!/^[a-z]/.test(base)) base = `f_${base}`.replace(/_+$/, '');
    base = base.slice(0, KEY_MAX);
  }
  let key = base;
  for (let n = 2; taken.has(key); n += 1) key = `${base.slice(0, KEY_MAX - String(n).length - 1)}_${n}`;
  taken.add(key);
  return key;
}

async function* contactsWithAttributes(queryRunner: QueryRunner): AsyncGenerator<StoredContact[]> {
  let after = '';
  for (;;) {
    const batch = (await queryRunner.query(
      `SELECT id, org_id, custom_attributes, updated_at FROM contacts WHERE id > ? ORDER BY id LIMIT ${CONTACTS_PER_BATCH}`,
      [after],
    )) as StoredContact[];
    const last = batch[batch.length - 1];
    if (!last) return;
    yield batch;
    after = last.id;
  }
}

async function insertRows(queryRunner: QueryRunner, table: string, columns: string[], rows: unknown[][]) {
  const row = `(${columns.map(() => '?').join(', ')})`;
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.slice(start, start + ROWS_PER_INSERT);
    await queryRunner.query(
      `INSERT INTO ${table} (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ${chunk.map(() => row).join(', ')}`,
      chunk.flat(),
    );
  }
}

/**
 * Two passes over the contacts in id order: the first learns, per org, every attribute name and the kinds of value
 * stored under it, and creates one definition per name (neither required nor unique); the second writes each
 * contact's values. Returns how many definitions and values were written.
 */
export async function moveCustomAttributes(
  queryRunner: QueryRunner,
  log: (line: string) => void = (line) => console.log(line),
): Promise<{ definitions: number; values: number }> {
  const kinds = new Map<string, Map<string, Set<string>>>();
  for await (const batch of contactsWithAttributes(queryRunner))
    for (const contact of batch)
      for (const [name, value] of attributesOf(contact)) {
        const names = kinds.get(contact.org_id) ?? new Map<string, Set<string>>();
        kinds.set(contact.org_id, names);
        const seen = names.get(name) ?? new Set<string>();
        names.set(name, seen);
        seen.add(typeof value === 'object' ? 'json' : typeof value);
      }
  const at = new Date();
  const stamp = at.toISOString().replace('T', ' ').replace('Z', '');
  const definitions = new Map<string, Map<string, Definition>>();
  const definitionRows: unknown[][] = [];
  for (const [orgId, names] of kinds) {
    const existing = (await queryRunner.query('SELECT `key` FROM people_field_definitions WHERE org_id = ?', [
      orgId,
    ])) as { key: string }[];
    const taken = new Set(existing.map((row) => row.key));
    const byName = new Map<string, Definition>();
    for (const [name, seen] of names) {
      const definition = { id: newId(at), key: keyFor(name, taken), type: typeOf(seen) };
      byName.set(name, definition);
      definitionRows.push([definition.id, orgId, definition.key, name.slice(0, LABEL_MAX), definition.type, '[]', 0, 0, stamp, stamp]);
    }
    definitions.set(orgId, byName);
  }
  await insertRows(
    queryRunner,
    'people_field_definitions',
    ['id', 'org_id', 'key', 'label', 'type', 'options', 'required', 'unique', 'created_at', 'updated_at'],
    definitionRows,
  );
  let values = 0;
  for await (const batch of contactsWithAttributes(queryRunner)) {
    const rows = batch.flatMap((contact) =>
      attributesOf(contact).flatMap(([name, value]) => {
        const definition = definitions.get(contact.org_id)?.get(name);
        if (!definition) return [];
        const stored = JSON.stringify(valueOf(definition.type, value));
        return [[newId(at), contact.org_id, contact.id, definition.id, stored, null, contact.updated_at, contact.updated_at]];
      }),
    );
    await insertRows(
      queryRunner,
      'people_field_values',
      ['id', 'org_id', 'contact_id', 'definition_id', 'value', 'unique_key', 'created_at', 'updated_at'],
      rows,
    );
    values += rows.length;
  }
  if (definitionRows.length)
    log(`contacts: moved custom attributes into ${definitionRows.length} people fields and ${values} values`);
  return { definitions: definitionRows.length, values };
}
