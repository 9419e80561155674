import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { dataOf, expectError } from './inbox-fixtures';

interface Contact {
  id: string;
  name: string | null;
  email: string | null;
  phone: string | null;
  externalId: string | null;
  customAttributes: Record<string, unknown> | null;
  identities: { type: string; value: string | null }[] | null;
  createdAt: string;
  updatedAt: string;
}

interface ContactsPage {
  data: Contact[];
  nextCursor: string | null;
  previousCursor: string | null;
  hasNext: boolean;
  hasPrevious: boolean;
}

const FIELDS = 'id name email phone externalId customAttributes identities { type value } createdAt updatedAt';
const CREATE = `mutation($i: ContactApiInput!) { createContactApi(input: $i) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $i: ContactApiInput!) { updateContactApi(id: $id, input: $i) { ${FIELDS} } }`;
const UPSERT = `mutation($i: ContactApiInput!) { upsertContactApi(input: $i) { ${FIELDS} } }`;
const GET = `query($id: ID!) { contactApi(id: $id) { ${FIELDS} } }`;
const BY_EXTERNAL_ID = `query($x: String!) { contactApiByExternalId(externalId: $x) { ${FIELDS} } }`;
const LIST = `query($p: ContactApiPaginationInput) { contactsApi(pagination: $p) { data { ${FIELDS} } nextCursor previousCursor hasNext hasPrevious } }`;
const LIST_DEFAULT = `{ contactsApi { data { id } nextCursor previousCursor hasNext hasPrevious } }`;

const READ_WRITE = [ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE];

describe('Contacts API (whole stack over HTTP)', function () {
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
  const create = async (input: Record<string, unknown>, as = key) =>
    (await gql<{ createContactApi: Contact }>(CREATE, { i: input }, as)).createContactApi;
  const update = async (id: string, input: Record<string, unknown>, as = key) =>
    (await gql<{ updateContactApi: Contact }>(UPDATE, { id, i: input }, as)).updateContactApi;
  const upsert = async (input: Record<string, unknown>, as = key) =>
    (await gql<{ upsertContactApi: Contact }>(UPSERT, { i: input }, as)).upsertContactApi;
  const get = async (id: string, as = key) => (await gql<{ contactApi: Contact }>(GET, { id }, as)).contactApi;
  const byExternalId = async (externalId: string, as = key) =>
    (await gql<{ contactApiByExternalId: Contact }>(BY_EXTERNAL_ID, { x: externalId }, as)).contactApiByExternalId;
  const list = async (pagination: Record<string, unknown> | undefined, as = key) =>
    (await gql<{ contactsApi: ContactsPage }>(LIST, { p: pagination }, as)).contactsApi;
  const unique = () => newId().slice(-10);

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Contacts');
    key = (await org.mintKey([...READ_WRITE, ApiScope.PII_READ])).key;
    maskedKey = (await org.mintKey(READ_WRITE)).key;
    // Custom attributes are people field values: each key must be a field of the org (decision 0156).
    const fields = { plan: 'TEXT', seats: 'NUMBER', region: 'TEXT', vip: 'BOOLEAN', source: 'TEXT', secret: 'TEXT' };
    for (const [field, type] of Object.entries(fields))
      await gql('mutation($i: CreatePeopleFieldDefinitionInput!) { createPeopleFieldDefinition(input: $i) { id } }', {
        i: { key: field, label: field, type },
      });
  });

  after(async () => harness.stop());

  describe('Contacts.createContactApi / contactApi', () => {
    it('returns the created contact, normalised, and reads it back by id', async () => {
      const externalId = `crm-${unique()}`;
      const created = await create({
        name: '  Grace Hopper ',
        email: 'Grace@Example.COM',
        phone: '+1 (555) 010-0199',
        externalId,
        customAttributes: { plan: 'pro', seats: 3 },
      });
      expect(created.id).to.match(/^[0-9a-f]{24}$/);
      expect(created).to.deep.include({
        name: 'Grace Hopper',
        email: 'grace@example.com',
        phone: '+15550100199',
        externalId,
        customAttributes: { plan: 'pro', seats: 3 },
      });
      expect(created.identities).to.have.deep.members([
        { type: 'EMAIL', value: 'grace@example.com' },
        { type: 'PHONE_NUMBER', value: '+15550100199' },
      ]);
      expect(await get(created.id)).to.deep.equal(created);
    });

    it('answers BAD_USER_INPUT for an email or phone that is not one, creating nothing', async () => {
      const externalId = `bad-${unique()}`;
      for (const input of [{ email: 'not-an-email' }, { phone: '5550100' }])
        expectError(await call(CREATE, { i: { ...input, externalId } }), 200, 'BAD_USER_INPUT');
      expectError(await call(BY_EXTERNAL_ID, { x: externalId }), 200, 'NOT_FOUND');
    });
  });

  describe('Contacts.updateContactApi', () => {
    it('keeps omitted fields, clears a field set to "", and merges custom attributes (null removes a key)', async () => {
      const created = await create({
        name: 'Ada',
        email: `ada-${unique()}@example.com`,
        phone: '+15550100111',
        customAttributes: { plan: 'pro', seats: 3 },
      });
      const updated = await update(created.id, { phone: '', customAttributes: { seats: null, region: 'eu' } });
      expect(updated).to.deep.include({
        id: created.id,
        name: 'Ada',
        email: created.email,
        phone: null,
        customAttributes: { plan: 'pro', region: 'eu' },
      });
      expect(updated.identities).to.deep.equal([{ type: 'EMAIL', value: created.email }]);
      expect(await get(created.id)).to.deep.equal(updated);
    });
  });

  describe('Contacts.upsertContactApi / contactApiByExternalId', () => {
    it('creates a contact for a new externalId, then updates that same contact', async () => {
      const externalId = `crm-${unique()}`;
      const first = await upsert({ externalId, name: 'First Name' });
      expect(first).to.deep.include({ externalId, name: 'First Name' });
      const second = await upsert({ externalId, name: 'Second Name', customAttributes: { vip: true } });
      expect(second).to.deep.include({ id: first.id, name: 'Second Name', customAttributes: { vip: true } });
      expect(await byExternalId(externalId)).to.deep.equal(second);
    });

    it('creates a contact for a new email, then updates that same contact whatever the case of the email', async () => {
      const email = `upsert-${unique()}@example.com`;
      const first = await upsert({ email, name: 'By Email' });
      expect(first).to.deep.include({ email, name: 'By Email', externalId: null });
      const second = await upsert({ email: email.toUpperCase(), customAttributes: { source: 'upsert' } });
      expect(second).to.deep.include({ id: first.id, email, name: 'By Email', customAttributes: { source: 'upsert' } });
      expect(await get(first.id)).to.deep.equal(second);
    });

    it('answers NOT_FOUND for an externalId no contact has', async () => {
      expectError(await call(BY_EXTERNAL_ID, { x: `nobody-${unique()}` }), 200, 'NOT_FOUND');
    });

    it('answers BAD_USER_INPUT for an upsert with nothing to match on', async () => {
      expectError(await call(UPSERT, { i: { name: 'Nobody' } }), 200, 'BAD_USER_INPUT');
    });

    it("answers CONFLICT naming `email` for a new externalId with another contact's email, creating nothing", async () => {
      const owner = await create({
        name: 'Owner',
        email: `owned-${unique()}@example.com`,
        externalId: `a-${unique()}`,
      });
      const externalId = `b-${unique()}`;
      const response = await call(UPSERT, { i: { externalId, email: owner.email?.toUpperCase(), name: 'Newcomer' } });
      expectError(response, 200, 'CONFLICT');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('email');
      expect(response.body.errors?.[0]?.message).to.equal('another contact already has this email');
      expect(response.body.data?.upsertContactApi ?? null).to.equal(null);
      expectError(await call(BY_EXTERNAL_ID, { x: externalId }), 200, 'NOT_FOUND');
      expect(await get(owner.id)).to.deep.equal(owner);
    });

    it("answers CONFLICT naming `phone` for a new externalId with another contact's phone, creating nothing", async () => {
      const owner = await create({ name: 'Owner', phone: '+15550100444', externalId: `a-${unique()}` });
      const externalId = `b-${unique()}`;
      const response = await call(UPSERT, { i: { externalId, phone: '+1 555 010 0444' } });
      expectError(response, 200, 'CONFLICT');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('phone');
      expectError(await call(BY_EXTERNAL_ID, { x: externalId }), 200, 'NOT_FOUND');
      expect(await get(owner.id)).to.deep.equal(owner);
    });

    it("answers CONFLICT naming `email` when the externalId's contact would take another contact's email", async () => {
      const owner = await create({ email: `taken-${unique()}@example.com` });
      const other = await create({ email: `mine-${unique()}@example.com`, externalId: `c-${unique()}` });
      const response = await call(UPSERT, { i: { externalId: other.externalId, email: owner.email, name: 'Moved' } });
      expectError(response, 200, 'CONFLICT');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('email');
      expect(await get(other.id)).to.deep.equal(other);
      expect(await get(owner.id)).to.deep.equal(owner);
    });

    it('links an externalId to the contact that owns the email only when asked to: upsert by email, then update', async () => {
      const email = `visitor-${unique()}@example.com`;
      const visitor = await create({ name: 'Widget Visitor', email });
      const externalId = `crm-${unique()}`;
      expectError(await call(UPSERT, { i: { externalId, email } }), 200, 'CONFLICT');
      const found = await upsert({ email });
      expect(found.id).to.equal(visitor.id);
      const linked = await update(found.id, { externalId });
      expect(linked).to.deep.include({ id: visitor.id, email, externalId });
      const again = await upsert({ externalId, email, name: 'Known Customer' });
      expect(again).to.deep.include({ id: visitor.id, name: 'Known Customer' });
      expect(await byExternalId(externalId)).to.deep.equal(again);
    });
  });

  describe('Contacts.contactsApi', () => {
    /** An org of its own, so the pages hold exactly the contacts created here. */
    let pagingKey: string;
    const created: string[] = [];

    before(async function () {
      this.timeout(120_000);
      const pagingOrg = await harness.newOrg('Paging');
      pagingKey = (await pagingOrg.mintKey(READ_WRITE)).key;
      for (let i = 0; i < 45; i += 1) created.push((await create({ name: `Contact ${i}` }, pagingKey)).id);
    });

    /** Every page from the start, following nextCursor while hasNext. */
    async function allPages(pagination: Record<string, unknown> = {}) {
      const pages: ContactsPage[] = [];
      let after: string | null = null;
      for (;;) {
        const page: ContactsPage = await list({ ...pagination, ...(after ? { after } : {}) }, pagingKey);
        pages.push(page);
        if (!page.hasNext) return pages;
        expect(pages.length, 'pages end').to.be.lessThan(50);
        after = page.nextCursor;
      }
    }

    it('returns 20 contacts by default, oldest first', async () => {
      const page = (await gql<{ contactsApi: ContactsPage }>(LIST_DEFAULT, {}, pagingKey)).contactsApi;
      expect(page.data.map((c) => c.id)).to.deep.equal(created.slice(0, 20));
      expect(page).to.deep.include({ hasNext: true, hasPrevious: false, nextCursor: created[19] });
    });

    it('pages through every contact once, in order, with `first` and `after`', async () => {
      for (const first of [undefined, 7, 45, 100]) {
        const pages = await allPages(first === undefined ? {} : { first });
        const size = first ?? 20;
        expect(pages.map((p) => p.data.length)).to.deep.equal(
          Array.from({ length: Math.ceil(45 / size) }, (_, i) => Math.min(size, 45 - i * size)),
        );
        expect(pages.flatMap((p) => p.data.map((c) => c.id))).to.deep.equal(created);
        expect(pages.map((p) => p.hasPrevious)).to.deep.equal(pages.map((_, i) => i > 0));
      }
    });

    it('answers an empty last page after the last contact', async () => {
      expect(await list({ after: created[44] }, pagingKey)).to.deep.include({
        data: [],
        hasNext: false,
        hasPrevious: true,
      });
    });

    it('answers BAD_USER_INPUT for a `first` out of 1..100 and an `after` that is not a contact id', async () => {
      for (const pagination of [{ first: 0 }, { first: -1 }, { first: 101 }, { after: 'not-an-id' }, { after: '42' }])
        expectError(await call(LIST, { p: pagination }, pagingKey), 200, 'BAD_USER_INPUT');
    });
  });

  describe('personal data', () => {
    const PERSONAL = { name: null, email: null, phone: null, customAttributes: null, identities: null };

    it('masks name, email, phone, custom attributes and identities without PII_READ, on every read and write', async () => {
      const externalId = `pii-${unique()}`;
      const input = {
        name: 'Private Person',
        email: `private-${unique()}@example.com`,
        phone: '+15550100222',
        externalId,
        customAttributes: { secret: 'x' },
      };
      const masked = await create(input, maskedKey);
      expect(masked).to.deep.include({ ...PERSONAL, externalId });
      expect(masked.id).to.match(/^[0-9a-f]{24}$/);
      expect(masked.createdAt).to.be.a('string');
      const clear = await get(masked.id);
      expect(clear).to.deep.include({ name: input.name, email: input.email, phone: input.phone });
      expect({ ...clear, ...PERSONAL }).to.deep.equal(masked);
      for (const contact of [
        await get(masked.id, maskedKey),
        await byExternalId(externalId, maskedKey),
        (await list({ first: 100 }, maskedKey)).data.find((c) => c.id === masked.id),
        await update(masked.id, { name: 'Renamed' }, maskedKey),
        await upsert({ externalId, phone: '+15550100333' }, maskedKey),
      ])
        expect(contact).to.deep.include({ ...PERSONAL, id: masked.id, externalId });
      expect(await get(masked.id)).to.deep.include({ name: 'Renamed', phone: '+15550100333' });
    });
  });

  describe('scopes', () => {
    it('refuses the reads without CONTACTS_READ (403 FORBIDDEN)', async () => {
      const contact = await create({ externalId: `scoped-${unique()}` });
      const writer = (await org.mintKey([ApiScope.CONTACTS_MANAGE, ApiScope.PII_READ])).key;
      for (const [query, variables] of [
        [GET, { id: contact.id }],
        [BY_EXTERNAL_ID, { x: contact.externalId }],
        [LIST, {}],
      ] as const) {
        const response = await call(query, variables, writer);
        expectError(response, 403, 'FORBIDDEN');
        expect(response.body.errors?.[0]?.extensions?.scope, query).to.equal(ApiScope.CONTACTS_READ);
      }
    });

    it('refuses the writes without CONTACTS_MANAGE (403 FORBIDDEN), changing nothing', async () => {
      const contact = await create({ name: 'Unchanged', externalId: `scoped-${unique()}` });
      const reader = (await org.mintKey([ApiScope.CONTACTS_READ, ApiScope.PII_READ])).key;
      const externalId = `never-${unique()}`;
      for (const [query, variables] of [
        [CREATE, { i: { externalId } }],
        [UPDATE, { id: contact.id, i: { name: 'Changed' } }],
        [UPSERT, { i: { externalId } }],
        [UPSERT, { i: { externalId: contact.externalId, name: 'Changed' } }],
      ] as const) {
        const response = await call(query, variables, reader);
        expectError(response, 403, 'FORBIDDEN');
        expect(response.body.errors?.[0]?.extensions?.scope, query).to.equal(ApiScope.CONTACTS_MANAGE);
      }
      expect(await get(contact.id)).to.deep.equal(contact);
      expectError(await call(BY_EXTERNAL_ID, { x: externalId }), 200, 'NOT_FOUND');
    });
  });

  describe("another org's contacts", () => {
    it('answers NOT_FOUND for their id and externalId, lists none of them, and never updates them', async () => {
      const other = await harness.newOrg('Other');
      const otherKey = (await other.mintKey([...READ_WRITE, ApiScope.PII_READ])).key;
      const externalId = `theirs-${unique()}`;
      const theirs = await create({ name: 'Theirs', email: `theirs-${unique()}@example.com`, externalId }, otherKey);
      expectError(await call(GET, { id: theirs.id }), 200, 'NOT_FOUND');
      expectError(await call(UPDATE, { id: theirs.id, i: { name: 'Hijacked' } }), 200, 'NOT_FOUND');
      expectError(await call(BY_EXTERNAL_ID, { x: externalId }), 200, 'NOT_FOUND');
      expect((await list({ first: 100 })).data.map((c) => c.id)).not.to.include(theirs.id);
      const ours = await upsert({ externalId, email: theirs.email, name: 'Ours' });
      expect(ours.id).not.to.equal(theirs.id);
      expect(await get(theirs.id, otherKey)).to.deep.equal(theirs);
    });
  });
});
