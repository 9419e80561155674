import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { SITE, WidgetFixtures, siteJwt, web, type SessionBody } from '../support/widget';
import { dataOf, expectError } from './inbox-fixtures';

type Attributes = Record<string, unknown> | null;

const CREATE = 'mutation($i: ContactApiInput!) { createContactApi(input: $i) { id customAttributes } }';
const UPDATE =
  'mutation($id: ID!, $i: ContactApiInput!) { updateContactApi(id: $id, input: $i) { id customAttributes } }';
const UPSERT = 'mutation($i: ContactApiInput!) { upsertContactApi(input: $i) { id customAttributes } }';
const GET = 'query($id: ID!) { contactApi(id: $id) { name customAttributes } }';
const BY_EXTERNAL_ID = 'query($x: String!) { contactApiByExternalId(externalId: $x) { id } }';
const DEFINE = 'mutation($i: CreatePeopleFieldDefinitionInput!) { createPeopleFieldDefinition(input: $i) { id } }';
const SET_VALUE =
  'mutation($c: ID!, $d: ID!, $v: JSON!) { setPeopleFieldValue(contactId: $c, definitionId: $d, value: $v) { value } }';
const DELETE_DEFINITION = 'mutation($id: ID!) { deletePeopleFieldDefinition(id: $id) { id } }';

/**
 * Every write of a contact's custom attributes goes through the org's people field definitions (decisions 0156,
 * 0157): the contacts API's `customAttributes`, the widget's profile `attributes` (flows' step: flows-steps.test.ts).
 */
describe('Contacts custom attributes are people field values (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let key: string;
  const ids: Record<string, string> = {};

  const call = (query: string, variables: Record<string, unknown>, as = key) =>
    harness.graphql<Record<string, { id: string; customAttributes: Attributes }>>(query, variables, as);
  const attributesOf = async (id: string, as = key) =>
    (dataOf(await call(GET, { id }, as)).contactApi as unknown as { customAttributes: Attributes }).customAttributes;
  const define = async (fieldKey: string, type: string, more: Record<string, unknown> = {}, as = key) =>
    dataOf(
      await harness.graphql<{ createPeopleFieldDefinition: { id: string } }>(
        DEFINE,
        {
          i: { key: fieldKey, label: fieldKey, type, ...more },
        },
        as,
      ),
    ).createPeopleFieldDefinition.id;
  const refusedField = (response: Awaited<ReturnType<typeof call>>) => {
    expectError(response, 200, 'BAD_USER_INPUT');
    return response.body.errors?.[0]?.extensions?.field;
  };

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Attributes');
    key = (await org.mintKey([ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE, ApiScope.PII_READ])).key;
    for (const [fieldKey, type, options] of [
      ['plan', 'SELECT', ['free', 'pro']],
      ['seats', 'NUMBER'],
      ['vip', 'BOOLEAN'],
      ['renewal', 'DATE'],
      ['note', 'TEXT'],
    ] as const)
      ids[fieldKey] = await define(fieldKey, type, options ? { options } : {});
  });
  after(async () => harness.stop());

  describe('createContactApi / updateContactApi / upsertContactApi customAttributes', () => {
    it('stores typed values and answers them on every read', async () => {
      const created = dataOf(
        await call(CREATE, { i: { name: 'Ada', customAttributes: { plan: 'pro', seats: 3, vip: true } } }),
      ).createContactApi;
      expect(created?.customAttributes).to.deep.equal({ plan: 'pro', seats: 3, vip: true });
      expect(await attributesOf(created!.id)).to.deep.equal({ plan: 'pro', seats: 3, vip: true });
    });

    it('refuses a key that is no people field of the org, naming it, and creates nothing', async () => {
      const externalId = `x-${newId()}`;
      expect(refusedField(await call(CREATE, { i: { externalId, customAttributes: { shoe_size: 42 } } }))).to.equal(
        'customAttributes.shoe_size',
      );
      expectError(await call(BY_EXTERNAL_ID, { x: externalId }), 200, 'NOT_FOUND');
    });

    it('refuses a value of the wrong type naming the field, on create, update and upsert, changing nothing', async () => {
      for (const [attributes, field] of [
        [{ seats: '3' }, 'customAttributes.seats'],
        [{ vip: 'yes' }, 'customAttributes.vip'],
        [{ plan: 'enterprise' }, 'customAttributes.plan'],
        [{ renewal: '2026-02-30' }, 'customAttributes.renewal'],
      ] as const)
        expect(refusedField(await call(CREATE, { i: { name: 'x', customAttributes: attributes } }))).to.equal(field);
      const { id } = dataOf(
        await call(CREATE, { i: { name: 'Bob', customAttributes: { seats: 1 } } }),
      ).createContactApi!;
      const refused = await call(UPDATE, { id, i: { name: 'Robert', customAttributes: { note: 'n', seats: 'two' } } });
      expect(refusedField(refused)).to.equal('customAttributes.seats');
      const email = `bob-${newId()}@example.com`;
      dataOf(await call(UPDATE, { id, i: { email } }));
      expect(refusedField(await call(UPSERT, { i: { email, customAttributes: { vip: 1 } } }))).to.equal(
        'customAttributes.vip',
      );
      const stored = dataOf(await call(GET, { id })).contactApi as unknown as { name: string };
      expect(stored.name).to.equal('Bob');
      expect(await attributesOf(id)).to.deep.equal({ seats: 1 });
    });

    it('merges on update (null removes a value) and reads what setPeopleFieldValue wrote', async () => {
      const { id } = dataOf(
        await call(CREATE, { i: { customAttributes: { seats: 2, note: 'first' } } }),
      ).createContactApi!;
      const updated = dataOf(
        await call(UPDATE, { id, i: { customAttributes: { note: null, vip: false } } }),
      ).updateContactApi!;
      expect(updated.customAttributes).to.deep.equal({ seats: 2, vip: false });
      dataOf(await harness.graphql(SET_VALUE, { c: id, d: ids.renewal, v: '2027-01-31' }, key));
      expect(await attributesOf(id)).to.deep.equal({ seats: 2, vip: false, renewal: '2027-01-31' });
    });

    it('drops the values of a deleted definition from every contact', async () => {
      const temporary = await define(`temp_${newId().slice(-6)}`, 'TEXT');
      const { id } = dataOf(await call(CREATE, { i: { customAttributes: { seats: 5 } } })).createContactApi!;
      dataOf(await harness.graphql(SET_VALUE, { c: id, d: temporary, v: 'soon gone' }, key));
      dataOf(await harness.graphql(DELETE_DEFINITION, { id: temporary }, key));
      expect(await attributesOf(id)).to.deep.equal({ seats: 5 });
    });

    it('masks custom attributes without PII_READ', async () => {
      const masked = (await org.mintKey([ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE])).key;
      const { id } = dataOf(await call(CREATE, { i: { customAttributes: { note: 'private' } } })).createContactApi!;
      expect(await attributesOf(id, masked)).to.equal(null);
    });

    it('refuses a member or key creating a contact without a required field (in an org that has one)', async () => {
      const other = await harness.newOrg('Required');
      const otherKey = (await other.mintKey([ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE])).key;
      await define('tier', 'TEXT', { required: true }, otherKey);
      expect(refusedField(await call(CREATE, { i: { name: 'No tier' } }, otherKey))).to.equal('customAttributes.tier');
      dataOf(await call(CREATE, { i: { name: 'Tiered', customAttributes: { tier: 'gold' } } }, otherKey));
    });
  });

  describe('widget profile attributes (POST /api/web/visitor/start-identified)', () => {
    it('stores known keys parsed as their field, leaves out unknown keys and invalid values, and still answers', async () => {
      const fixtures = new WidgetFixtures(harness, org);
      const { integration, secret } = await fixtures.integration();
      const started = await web<SessionBody>(harness.url, '/visitor/start-identified', {
        origin: SITE,
        body: {
          publicKey: integration.publicKey,
          jwt: await siteJwt(secret, {}, { sub: `visitor-${newId()}` }),
          attributes: { plan: 'pro', seats: '7', vip: 'maybe', shoe_size: 42 },
        },
      });
      expect(started.status, JSON.stringify(started.body)).to.equal(200);
      const chat = dataOf(
        await harness.graphql<{ chat: { contact: { _id: string } } }>(
          'query($c: String!) { chat(chatId: $c) { contact { _id } } }',
          { c: started.body.chat._id },
          (await org.mintKey([ApiScope.MESSAGES_READ])).key,
        ),
      ).chat;
      expect(await attributesOf(chat.contact._id)).to.deep.equal({ plan: 'pro', seats: 7 });
    });
  });
});
