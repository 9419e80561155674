import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { dropTestDatabase, newId, openDataSource, testDbUrl } from '@svc/kit';
import { contactsData } from '../src/data';
import { readAttributes } from '../src/domain/people-fields';
import { PeopleFieldDefinitionRow } from '../src/entities';
import { keyFor } from '../src/migrations/custom-attributes-to-fields';
import { migrations as mysql } from '../src/migrations/mysql';
import { migrations as sqlite } from '../src/migrations/sqlite';

const MOVE = 'CustomAttributesToPeopleFields';
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
const upTo = (list: Function[]) =>
  list.slice(
    0,
    list.findIndex((migration) => migration.name.startsWith(MOVE)),
  );

describe('Contacts.CustomAttributesToPeopleFields (data migration, decision 0157)', function () {
  this.timeout(60_000);
  const url = testDbUrl('contacts_attributes_migration', path.join(os.tmpdir(), `contacts-attributes-${newId()}.db`));
  const [orgA, orgB] = [newId(), newId()];
  const [ada, bob, cyd, dee] = [newId(), newId(), newId(), newId()];
  let dataSource: DataSource;

  before(async () => {
    const old = await openDataSource(
      { ...contactsData, url, migrations: { sqlite: upTo(sqlite), mysql: upTo(mysql) } },
      { migrate: true },
    );
    const stored: [string, string, string][] = [
      [ada, orgA, JSON.stringify({ plan: 'pro', seats: 3, vip: true, 'Signup Date': '2024-01-02', tags: ['a', 'b'] })],
      [bob, orgA, JSON.stringify({ plan: 'free', seats: 'many', vip: false, 'signup-date': 'soon' })],
      [cyd, orgA, '{}'],
      [dee, orgB, JSON.stringify({ plan: 'team' })],
    ];
    for (const [id, orgId, attributes] of stored)
      await old.query(
        'INSERT INTO contacts (id, org_id, custom_attributes, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
        [id, orgId, attributes, '2026-01-02 03:04:05.000', '2026-01-02 03:04:05.000'],
      );
    await old.destroy();
    dataSource = await openDataSource({ ...contactsData, url }, { migrate: true });
  });
  after(async () => {
    await dataSource?.destroy();
    await dropTestDatabase(url);
  });

  it('runs between the migration that creates the people field tables and the one that drops the column', () => {
    for (const list of [sqlite, mysql]) {
      const names = list.map((migration) => migration.name);
      const move = names.findIndex((name) => name.startsWith(MOVE));
      expect(move).to.be.greaterThan(names.findIndex((name) => name.startsWith('PeopleFields')));
      expect(move).to.be.lessThan(names.findIndex((name) => name.startsWith('CustomAttributesDropped')));
    }
  });

  it('creates one definition per attribute name and org, typed from every value stored under it', async () => {
    const definitions = await dataSource.getRepository(PeopleFieldDefinitionRow).find({ where: { orgId: orgA } });
    const shape = Object.fromEntries(definitions.map((d) => [d.key, [d.label, d.type, d.required, d.unique]]));
    expect(shape).to.deep.equal({
      plan: ['plan', 'TEXT', false, false],
      seats: ['seats', 'TEXT', false, false],
      vip: ['vip', 'BOOLEAN', false, false],
      signup_date: ['Signup Date', 'TEXT', false, false],
      signup_date_2: ['signup-date', 'TEXT', false, false],
      tags: ['tags', 'TEXT', false, false],
    });
    const other = await dataSource.getRepository(PeopleFieldDefinitionRow).find({ where: { orgId: orgB } });
    expect(other.map((d) => [d.key, d.type])).to.deep.equal([['plan', 'TEXT']]);
  });

  it("keeps every contact's values (as text where the field is text), and none for a contact without", async () => {
    const attributes = await readAttributes(dataSource.manager, orgA, [ada, bob, cyd]);
    expect(attributes.get(ada)).to.deep.equal({
      plan: 'pro',
      seats: '3',
      vip: true,
      signup_date: '2024-01-02',
      tags: '["a","b"]',
    });
    expect(attributes.get(bob)).to.deep.equal({ plan: 'free', seats: 'many', vip: false, signup_date_2: 'soon' });
    expect(attributes.get(cyd)).to.deep.equal({});
    expect((await readAttributes(dataSource.manager, orgB, [dee])).get(dee)).to.deep.equal({ plan: 'team' });
  });

  it('drops the free-form column', async () => {
    let failed = false;
    await dataSource.query('SELECT custom_attributes FROM contacts').catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('makes a key of any attribute name, unique in the org', () => {
    const taken = new Set(['plan']);
    expect(['plan', 'Plan', '2nd Phone', '!!!', 'x'.repeat(80)].map((name) => keyFor(name, taken))).to.deep.equal([
      'plan_2',
      'plan_3',
      'f_2nd_phone',
      'f',
      'x'.repeat(64),
    ]);
  });
});
