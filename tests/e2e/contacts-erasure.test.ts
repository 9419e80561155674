import { expect } from 'chai';
import { ApiScope, ERASURE_PARTICIPANTS, eventually, newId, publishEraseConfirmation } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import type { Receipt } from './erasure-fixtures';
import { dataOf, expectError } from './inbox-fixtures';

const COUNTS = 'counts { kind count }';
const RECEIPT = `id contactId requestedBy requestedAt status completedAt services { service confirmed confirmedAt ${COUNTS} }`;
const ERASE = `mutation($c: String!) { eraseContact(contactId: $c) { ${RECEIPT} } }`;
const PREVIEW = `query($c: String!) { previewErase(contactId: $c) { contactId services { service ${COUNTS} } } }`;
const CREATE = 'mutation($i: ContactApiInput!) { createContactApi(input: $i) { id } }';
const GET = 'query($id: ID!) { contactApi(id: $id) { id } }';
const LIST = '{ contactsApi(pagination: { first: 100 }) { data { id } } }';

describe('Contacts erasure: previewErase and eraseContact (whole stack over GraphQL, docs/erasure.md)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let other: TestOrg;
  /** CONTACTS_ERASE, CONTACTS_READ and CONTACTS_MANAGE. */
  let eraser: { id: string; key: string };
  /** CONTACTS_READ and CONTACTS_MANAGE: every contacts scope but CONTACTS_ERASE. */
  let manager: string;
  let stranger: string;

  const erase = (contactId: string, as = eraser.key) =>
    harness.graphql<{ eraseContact: Receipt }>(ERASE, { c: contactId }, as);
  const receiptOf = async (contactId: string) => dataOf(await erase(contactId)).eraseContact;
  const newContact = async () => {
    const email = `grace-${newId()}@example.com`;
    const created = dataOf(
      await harness.graphql<{ createContactApi: { id: string } }>(CREATE, { i: { name: 'Grace', email } }, manager),
    );
    return created.createContactApi.id;
  };

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('Erasure');
    other = await harness.newOrg('Elsewhere');
    eraser = await org.mintKey([ApiScope.CONTACTS_ERASE, ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE]);
    manager = (await org.mintKey([ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE])).key;
    stranger = (await other.mintKey([ApiScope.CONTACTS_ERASE, ApiScope.CONTACTS_READ])).key;
  });

  after(async () => harness.stop());

  it('erases a contact: unreadable at once, a receipt naming who asked and what contacts erased', async () => {
    const contactId = await newContact();
    const receipt = dataOf(await erase(contactId)).eraseContact;
    expect(receipt.id).to.match(/^[0-9a-f]{24}$/);
    expect(receipt).to.deep.include({ contactId, requestedBy: eraser.id });
    expect(new Date(receipt.requestedAt).toISOString()).to.equal(receipt.requestedAt);
    expect(receipt.services.map((s) => s.service)).to.deep.equal([...ERASURE_PARTICIPANTS]);
    expect(receipt.services[0]).to.deep.include({
      service: 'contacts',
      confirmed: true,
      counts: [
        { kind: 'contact', count: 1 },
        { kind: 'identities', count: 1 },
        { kind: 'field_values', count: 0 },
      ],
    });
    expectError(await harness.graphql(GET, { id: contactId }, eraser.key), 200, 'NOT_FOUND');
    const listed = dataOf(await harness.graphql<{ contactsApi: { data: { id: string }[] } }>(LIST, {}, eraser.key));
    expect(listed.contactsApi.data.map((c) => c.id)).not.to.include(contactId);
    expectError(await harness.graphql(PREVIEW, { c: contactId }, eraser.key), 200, 'NOT_FOUND');
  });

  it('answers the same receipt when asked again, completed once every participant confirmed, whenever', async () => {
    const contactId = await newContact();
    const first = await receiptOf(contactId);
    // Stand in for the participants that have not confirmed (yet): a confirmation may arrive at any time.
    const prefix = harness.stack.config.KAFKA_TOPIC_PREFIX;
    const erasure = { erasureId: first.id, orgId: org.id, contactId };
    for (const { service, confirmed } of (await receiptOf(contactId)).services)
      if (!confirmed) await publishEraseConfirmation(harness.stack.bus, prefix, erasure, service, []);
    const completed = await eventually(async () => {
      const receipt = await receiptOf(contactId);
      return receipt.status === 'COMPLETED' && receipt;
    });
    expect(completed).to.deep.include({ id: first.id, requestedAt: first.requestedAt, requestedBy: eraser.id });
    expect(completed.completedAt).to.be.a('string');
    expect(completed.services.every((s) => s.confirmed && s.confirmedAt)).to.equal(true);
    expect(completed.services[0]).to.deep.equal(first.services[0]);
  });

  it('refuses both operations to a key without CONTACTS_ERASE', async () => {
    const contactId = await newContact();
    expectError(await erase(contactId, manager), 403, 'FORBIDDEN');
    expectError(await harness.graphql(PREVIEW, { c: contactId }, manager), 403, 'FORBIDDEN');
    dataOf(await harness.graphql(GET, { id: contactId }, manager));
  });

  it('answers another org’s contact as an unknown one, and erases nothing', async () => {
    const contactId = await newContact();
    for (const query of [ERASE, PREVIEW]) {
      const theirs = await harness.graphql(query, { c: contactId }, stranger);
      const nobodys = await harness.graphql(query, { c: newId() }, stranger);
      expectError(theirs, 200, 'NOT_FOUND');
      expect(theirs.body.errors).to.deep.equal(nobodys.body.errors);
      expect(theirs.body.errors?.[0]?.extensions?.field).to.equal('contactId');
    }
    dataOf(await harness.graphql(GET, { id: contactId }, manager));
  });

  it('refuses a malformed contact id naming the argument', async () => {
    for (const query of [ERASE, PREVIEW]) {
      const response = await harness.graphql(query, { c: 'not-an-id' }, eraser.key);
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('contactId');
    }
  });

  // Last: it stops widget-api for the rest of the suite.
  it('refuses a preview while a participant is down: UNAVAILABLE naming it, nothing erased', async () => {
    const contactId = await newContact();
    await harness.stack.widget.stop();
    const response = await harness.graphql(PREVIEW, { c: contactId }, eraser.key);
    expectError(response, 200, 'UNAVAILABLE');
    expect(response.body.errors?.[0]?.message).to.match(
      /^the erasure cannot be previewed: .*widget-api did not answer$/,
    );
    dataOf(await harness.graphql(GET, { id: contactId }, manager));
  });
});
