import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { dataOf, expectError, expectField, refusalOf } from './inbox-fixtures';

interface Definition {
  id: string;
  key: string;
  label: string;
  type: string;
  options: string[];
  required: boolean;
  unique: boolean;
  createdAt: string;
  updatedAt: string;
}

interface Value {
  contactId: string;
  definitionId: string;
  key: string;
  type: string;
  value: unknown;
  updatedAt: string;
}

const DEFINITION = 'id key label type options required unique createdAt updatedAt';
const VALUE = 'contactId definitionId key type value updatedAt';
const LIST_DEFINITIONS = `{ getPeopleFieldDefinitions { ${DEFINITION} } }`;
const CREATE_DEFINITION = `mutation($i: CreatePeopleFieldDefinitionInput!) { createPeopleFieldDefinition(input: $i) { ${DEFINITION} } }`;
const UPDATE_DEFINITION = `mutation($id: ID!, $i: UpdatePeopleFieldDefinitionInput!) { updatePeopleFieldDefinition(id: $id, input: $i) { ${DEFINITION} } }`;
const DELETE_DEFINITION = 'mutation($id: ID!) { deletePeopleFieldDefinition(id: $id) { id valuesRemoved } }';
const GET_VALUE = `query($c: ID!, $d: ID!) { getPeopleFieldValue(contactId: $c, definitionId: $d) { ${VALUE} } }`;
const GET_VALUES = `query($c: ID!) { getPeopleFieldValues(contactId: $c) { ${VALUE} } }`;
const SET_VALUE = `mutation($c: ID!, $d: ID!, $v: JSON!) { setPeopleFieldValue(contactId: $c, definitionId: $d, value: $v) { ${VALUE} } }`;
const DELETE_VALUE =
  'mutation($c: ID!, $d: ID!) { deletePeopleFieldValue(contactId: $c, definitionId: $d) { deleted } }';
const CREATE_CONTACT = 'mutation { createContactApi(input: { name: "Ada" }) { id } }';

const READ_WRITE = [ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE];

describe('People fields (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  /** CONTACTS_READ, CONTACTS_MANAGE and PII_READ. */
  let key: string;
  /** CONTACTS_READ and CONTACTS_MANAGE, without PII_READ. */
  let maskedKey: string;

  const call = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as);
  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    call<T>(query, variables, as).then(dataOf);
  const unique = () => `f_${newId().slice(-10)}`;
  const define = async (input: Record<string, unknown>, as = key) =>
    (
      await gql<{ createPeopleFieldDefinition: Definition }>(
        CREATE_DEFINITION,
        { i: { label: 'A field', ...input } },
        as,
      )
    ).createPeopleFieldDefinition;
  const redefine = async (id: string, input: Record<string, unknown>) =>
    (await gql<{ updatePeopleFieldDefinition: Definition }>(UPDATE_DEFINITION, { id, i: input }))
      .updatePeopleFieldDefinition;
  const newContact = async (as = key) =>
    (await gql<{ createContactApi: { id: string } }>(CREATE_CONTACT, {}, as)).createContactApi.id;
  const set = async (contactId: string, definitionId: string, value: unknown, as = key) =>
    (await gql<{ setPeopleFieldValue: Value }>(SET_VALUE, { c: contactId, d: definitionId, v: value }, as))
      .setPeopleFieldValue;
  const valueOf = async (contactId: string, definitionId: string, as = key) =>
    (await gql<{ getPeopleFieldValue: Value | null }>(GET_VALUE, { c: contactId, d: definitionId }, as))
      .getPeopleFieldValue;
  const valuesOf = async (contactId: string, as = key) =>
    (await gql<{ getPeopleFieldValues: Value[] }>(GET_VALUES, { c: contactId }, as)).getPeopleFieldValues;

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('People fields');
    key = (await org.mintKey([...READ_WRITE, ApiScope.PII_READ])).key;
    maskedKey = (await org.mintKey(READ_WRITE)).key;
  });

  after(async () => harness.stop());

  describe('definitions', () => {
    it('creates one of every type, lists them oldest first, and updates a label', async () => {
      const created: Definition[] = [];
      for (const type of ['TEXT', 'NUMBER', 'BOOLEAN', 'DATE', 'URL', 'EMAIL', 'PHONE'])
        created.push(await define({ key: unique(), type }));
      created.push(await define({ key: unique(), type: 'SELECT', options: [' free ', 'pro'], required: true }));
      created.push(await define({ key: unique(), type: 'MULTI_SELECT', options: ['a', 'b'] }));
      const select = created[7] as Definition;
      expect(select).to.deep.include({ type: 'SELECT', options: ['free', 'pro'], required: true, unique: false });
      expect(created[0]?.options).to.deep.equal([]);
      const listed = (await gql<{ getPeopleFieldDefinitions: Definition[] }>(LIST_DEFINITIONS))
        .getPeopleFieldDefinitions;
      expect(listed.slice(-created.length)).to.deep.equal(created);
      const relabelled = await redefine(select.id, { label: 'Plan' });
      expect(relabelled).to.deep.include({ id: select.id, key: select.key, label: 'Plan', options: ['free', 'pro'] });
      // A required field would have every later contact of the org created with a value of it (decision 0156).
      await redefine(select.id, { required: false });
    });

    it('refuses a malformed key, a taken key, a select without options, options on a text field (BAD_USER_INPUT / CONFLICT naming the field)', async () => {
      const taken = await define({ key: unique(), type: 'TEXT' });
      const cases: [Record<string, unknown>, string, string][] = [
        [{ key: 'Not A Key', type: 'TEXT' }, 'BAD_USER_INPUT', 'key'],
        [{ key: '1abc', type: 'TEXT' }, 'BAD_USER_INPUT', 'key'],
        [{ key: taken.key, type: 'NUMBER' }, 'CONFLICT', 'key'],
        [{ key: unique(), type: 'SELECT' }, 'BAD_USER_INPUT', 'options'],
        [{ key: unique(), type: 'SELECT', options: ['a', 'a'] }, 'BAD_USER_INPUT', 'options'],
        [{ key: unique(), type: 'TEXT', options: ['a'] }, 'BAD_USER_INPUT', 'options'],
        [{ key: unique(), type: 'BOOLEAN', unique: true }, 'BAD_USER_INPUT', 'unique'],
        [{ key: unique(), type: 'TEXT', label: ' ' }, 'BAD_USER_INPUT', 'label'],
      ];
      for (const [input, code, field] of cases)
        expectField(await call(CREATE_DEFINITION, { i: { label: 'x', ...input } }), code, field);
    });

    it('deleting a definition removes every value of it', async () => {
      const field = await define({ key: unique(), type: 'TEXT' });
      const [ann, bob] = [await newContact(), await newContact()];
      await set(ann, field.id, 'one');
      await set(bob, field.id, 'two');
      const deleted = (
        await gql<{ deletePeopleFieldDefinition: { id: string; valuesRemoved: number } }>(DELETE_DEFINITION, {
          id: field.id,
        })
      ).deletePeopleFieldDefinition;
      expect(deleted).to.deep.equal({ id: field.id, valuesRemoved: 2 });
      expect(await valuesOf(ann)).to.deep.equal([]);
      expectField(await call(GET_VALUE, { c: bob, d: field.id }), 'NOT_FOUND', 'definitionId');
      expectField(await call(DELETE_DEFINITION, { id: field.id }), 'NOT_FOUND', 'id');
    });
  });

  describe('values', () => {
    it('stores a value of every type in its canonical form and reads it back, one and all', async () => {
      const contact = await newContact();
      const cases: [Record<string, unknown>, unknown, unknown][] = [
        [{ type: 'TEXT' }, 'Ann', 'Ann'],
        [{ type: 'NUMBER' }, 42.5, 42.5],
        [{ type: 'BOOLEAN' }, false, false],
        [{ type: 'DATE' }, '2024-02-29', '2024-02-29'],
        [{ type: 'URL' }, 'https://example.com/x', 'https://example.com/x'],
        [{ type: 'EMAIL' }, 'Ann@Example.COM', 'ann@example.com'],
        [{ type: 'PHONE' }, '+1 (555) 010-0100', '+15550100100'],
        [{ type: 'SELECT', options: ['free', 'pro'] }, 'pro', 'pro'],
        [{ type: 'MULTI_SELECT', options: ['a', 'b', 'c'] }, ['c', 'a', 'c'], ['a', 'c']],
      ];
      const stored: Value[] = [];
      for (const [input, given, canonical] of cases) {
        const field = await define({ key: unique(), ...input });
        const value = await set(contact, field.id, given);
        expect(value).to.deep.include({ contactId: contact, definitionId: field.id, key: field.key, type: field.type });
        expect(value.value, field.type).to.deep.equal(canonical);
        expect(await valueOf(contact, field.id)).to.deep.equal(value);
        stored.push(value);
      }
      expect(await valuesOf(contact)).to.deep.equal(stored);
    });

    it('answers BAD_USER_INPUT naming `value` for a value of the wrong type, storing nothing', async () => {
      const contact = await newContact();
      const cases: [Record<string, unknown>, unknown][] = [
        [{ type: 'NUMBER' }, '42'],
        [{ type: 'BOOLEAN' }, 'true'],
        [{ type: 'DATE' }, '2023-02-29'],
        [{ type: 'TEXT' }, 7],
        [{ type: 'URL' }, 'javascript:alert(1)'],
        [{ type: 'EMAIL' }, 'nobody'],
        [{ type: 'PHONE' }, 'call me'],
        [{ type: 'SELECT', options: ['free'] }, 'gold'],
        [{ type: 'MULTI_SELECT', options: ['a'] }, 'a'],
        [{ type: 'TEXT' }, { nested: true }],
      ];
      for (const [input, value] of cases) {
        const field = await define({ key: unique(), ...input });
        expectField(await call(SET_VALUE, { c: contact, d: field.id, v: value }), 'BAD_USER_INPUT', 'value');
      }
      expect(await valuesOf(contact)).to.deep.equal([]);
    });

    it('masks values without PII_READ', async () => {
      const contact = await newContact();
      const field = await define({ key: unique(), type: 'TEXT' });
      expect((await set(contact, field.id, 'secret', maskedKey)).value).to.equal(null);
      expect((await valueOf(contact, field.id, maskedKey))?.value).to.equal(null);
      expect((await valuesOf(contact, maskedKey)).map((v) => v.value)).to.deep.equal([null]);
      expect((await valueOf(contact, field.id))?.value).to.equal('secret');
    });

    it('deletes a value (deleted: false when there was none); a required field keeps its value', async () => {
      const contact = await newContact();
      const field = await define({ key: unique(), type: 'NUMBER' });
      await set(contact, field.id, 1);
      const remove = () =>
        gql<{ deletePeopleFieldValue: { deleted: boolean } }>(DELETE_VALUE, { c: contact, d: field.id });
      expect((await remove()).deletePeopleFieldValue.deleted).to.equal(true);
      expect(await valueOf(contact, field.id)).to.equal(null);
      expect((await remove()).deletePeopleFieldValue.deleted).to.equal(false);
      const required = await define({ key: unique(), type: 'TEXT', required: true });
      await set(contact, required.id, 'kept');
      expectField(await call(DELETE_VALUE, { c: contact, d: required.id }), 'BAD_USER_INPUT', 'definitionId');
      expect((await valueOf(contact, required.id))?.value).to.equal('kept');
      await redefine(required.id, { required: false });
    });

    it('a unique field refuses a value another contact has (CONFLICT naming `value`)', async () => {
      const field = await define({ key: unique(), type: 'EMAIL', unique: true });
      const [ann, bob] = [await newContact(), await newContact()];
      await set(ann, field.id, 'ann@example.com');
      await set(ann, field.id, 'ANN@example.com');
      expectField(await call(SET_VALUE, { c: bob, d: field.id, v: 'Ann@Example.com' }), 'CONFLICT', 'value');
      expect(await valueOf(bob, field.id)).to.equal(null);
    });
  });

  describe('changing a definition', () => {
    it('converts stored values to a new type; refuses when some would not convert, unless told to remove them', async () => {
      const field = await define({ key: unique(), type: 'TEXT' });
      const [ann, bob] = [await newContact(), await newContact()];
      await set(ann, field.id, ' 42 ');
      await set(bob, field.id, 'forty-two');
      const refused = await call(UPDATE_DEFINITION, { id: field.id, i: { type: 'NUMBER' } });
      expectField(refused, 'FAILED_PRECONDITION', 'type');
      expect(refused.body.errors?.[0]?.message).to.include('1 stored value');
      expect((await valueOf(ann, field.id))?.value).to.equal(' 42 ');
      const changed = await redefine(field.id, { type: 'NUMBER', removeInvalidValues: true });
      expect(changed.type).to.equal('NUMBER');
      expect((await valueOf(ann, field.id))?.value).to.equal(42);
      expect(await valueOf(bob, field.id)).to.equal(null);
      // Back to text: every number has a text form.
      await redefine(field.id, { type: 'TEXT' });
      expect((await valueOf(ann, field.id))?.value).to.equal('42');
    });

    it('a select becomes a multi-select keeping its options; removing an option in use is refused', async () => {
      const field = await define({ key: unique(), type: 'SELECT', options: ['free', 'pro', 'gold'] });
      const contact = await newContact();
      await set(contact, field.id, 'pro');
      const multi = await redefine(field.id, { type: 'MULTI_SELECT' });
      expect(multi.options).to.deep.equal(['free', 'pro', 'gold']);
      expect((await valueOf(contact, field.id))?.value).to.deep.equal(['pro']);
      expect((await redefine(field.id, { options: ['pro', 'free'] })).options).to.deep.equal(['pro', 'free']);
      expectField(
        await call(UPDATE_DEFINITION, { id: field.id, i: { options: ['free'] } }),
        'FAILED_PRECONDITION',
        'options',
      );
      expectField(
        await call(UPDATE_DEFINITION, { id: field.id, i: { type: 'TEXT', options: ['x'] } }),
        'BAD_USER_INPUT',
        'options',
      );
      expect((await valueOf(contact, field.id))?.value).to.deep.equal(['pro']);
    });

    it('making a field unique is refused while two contacts share a value', async () => {
      const field = await define({ key: unique(), type: 'TEXT' });
      const [ann, bob] = [await newContact(), await newContact()];
      await set(ann, field.id, 'same');
      await set(bob, field.id, 'same');
      expectField(await call(UPDATE_DEFINITION, { id: field.id, i: { unique: true } }), 'CONFLICT', 'unique');
      await set(bob, field.id, 'other');
      expect((await redefine(field.id, { unique: true })).unique).to.equal(true);
      expectField(await call(SET_VALUE, { c: bob, d: field.id, v: 'same' }), 'CONFLICT', 'value');
    });
  });

  describe('scopes', () => {
    it('refuses the reads without CONTACTS_READ and the writes without CONTACTS_MANAGE (403 FORBIDDEN)', async () => {
      const field = await define({ key: unique(), type: 'TEXT' });
      const contact = await newContact();
      const readOnly = (await org.mintKey([ApiScope.CONTACTS_READ, ApiScope.PII_READ])).key;
      const writeOnly = (await org.mintKey([ApiScope.CONTACTS_MANAGE])).key;
      for (const [query, variables] of [
        [LIST_DEFINITIONS, {}],
        [GET_VALUE, { c: contact, d: field.id }],
        [GET_VALUES, { c: contact }],
      ] as const)
        expectError(await call(query, variables, writeOnly), 403, 'FORBIDDEN');
      for (const [query, variables] of [
        [CREATE_DEFINITION, { i: { key: unique(), label: 'x', type: 'TEXT' } }],
        [UPDATE_DEFINITION, { id: field.id, i: { label: 'changed' } }],
        [DELETE_DEFINITION, { id: field.id }],
        [SET_VALUE, { c: contact, d: field.id, v: 'x' }],
        [DELETE_VALUE, { c: contact, d: field.id }],
      ] as const)
        expectError(await call(query, variables, readOnly), 403, 'FORBIDDEN');
      expect(
        (
          await gql<{ getPeopleFieldDefinitions: Definition[] }>(LIST_DEFINITIONS, {}, readOnly)
        ).getPeopleFieldDefinitions.find((d) => d.id === field.id)?.label,
      ).to.equal('A field');
      expect(await valueOf(contact, field.id, readOnly)).to.equal(null);
    });
  });

  describe("another org's ids", () => {
    it('answers NOT_FOUND exactly as for an id nobody has, and changes nothing', async () => {
      const other = await harness.newOrg('Other');
      const otherKey = (await other.mintKey([...READ_WRITE, ApiScope.PII_READ])).key;
      const theirField = await define({ key: unique(), type: 'TEXT' }, otherKey);
      const theirContact = await newContact(otherKey);
      await set(theirContact, theirField.id, 'theirs', otherKey);
      const myField = await define({ key: unique(), type: 'TEXT' });
      const myContact = await newContact();
      const calls: [string, (id: string) => Record<string, unknown>][] = [
        [GET_VALUE, (id) => ({ c: id, d: myField.id })],
        [GET_VALUE, (id) => ({ c: myContact, d: id })],
        [GET_VALUES, (id) => ({ c: id })],
        [SET_VALUE, (id) => ({ c: id, d: myField.id, v: 'x' })],
        [SET_VALUE, (id) => ({ c: myContact, d: id, v: 'x' })],
        [DELETE_VALUE, (id) => ({ c: id, d: myField.id })],
        [DELETE_VALUE, (id) => ({ c: myContact, d: id })],
        [UPDATE_DEFINITION, (id) => ({ id, i: { label: 'mine now' } })],
        [DELETE_DEFINITION, (id) => ({ id })],
      ];
      for (const [query, variables] of calls) {
        const theirId = JSON.stringify(variables('X')).includes('"c":"X"') ? theirContact : theirField.id;
        const nobodys = newId();
        const theirs = refusalOf(await call(query, variables(theirId)), theirId);
        expect(theirs.code, query).to.equal('NOT_FOUND');
        expect(theirs, query).to.deep.equal(refusalOf(await call(query, variables(nobodys)), nobodys));
      }
      expect((await valuesOf(theirContact, otherKey)).map((v) => v.value)).to.deep.equal(['theirs']);
      const theirDefinitions = (await gql<{ getPeopleFieldDefinitions: Definition[] }>(LIST_DEFINITIONS, {}, otherKey))
        .getPeopleFieldDefinitions;
      expect(theirDefinitions).to.deep.equal([theirField]);
      expect(
        (await gql<{ getPeopleFieldDefinitions: Definition[] }>(LIST_DEFINITIONS)).getPeopleFieldDefinitions.map(
          (d) => d.id,
        ),
      ).not.to.include(theirField.id);
    });

    it('answers BAD_USER_INPUT naming the argument for a malformed id', async () => {
      const field = await define({ key: unique(), type: 'TEXT' });
      expectField(await call(GET_VALUE, { c: 'nope', d: field.id }), 'BAD_USER_INPUT', 'contactId');
      expectField(
        await call(SET_VALUE, { c: await newContact(), d: 'nope', v: 'x' }),
        'BAD_USER_INPUT',
        'definitionId',
      );
      expectField(await call(DELETE_DEFINITION, { id: 'nope' }), 'BAD_USER_INPUT', 'id');
    });
  });
});
