import { expect } from 'chai';
import { ApiScope, eventually, grpcClient, newId, now, systemPrincipal, unary } from '@svc/kit';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { ChannelRow } from '@svc/channels/dist/src/entities';
import { IdentityRow } from '@svc/contacts/dist/src/entities';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { dataOf, expectError } from './inbox-fixtures';

interface Identity {
  type: string;
  value: string;
  channelIntegrationId: string | null;
}

const FIELDS = 'id identities { type value channelIntegrationId }';
const CREATE = `mutation($i: ContactApiInput!) { createContactApi(input: $i) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $i: ContactApiInput!) { updateContactApi(id: $id, input: $i) { ${FIELDS} } }`;
const UPSERT = `mutation($i: ContactApiInput!) { upsertContactApi(input: $i) { ${FIELDS} } }`;
const GET = `query($id: ID!) { contactApi(id: $id) { ${FIELDS} } }`;
const EDITABLE = `query($c: ID!) { isChatAppAIdEditable(contactId: $c) }`;

/** isChatAppAIdEditable and where the ChatAppA id is edited (decision 0155), through the whole stack. */
describe('Contacts.isChatAppAIdEditable (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let key: string;
  let chatAppA: string;
  let chatAppB: string;

  const call = (query: string, variables: Record<string, unknown>, as = key) =>
    harness.graphql<Record<string, unknown>>(query, variables, as);
  const editable = async (contactId: string, as = key) =>
    dataOf(await call(EDITABLE, { c: contactId }, as)).isChatAppAIdEditable;
  const userIds = (identities: Identity[]) =>
    identities.filter((i) => i.type === 'CHANNEL_USER_ID').map((i) => `${i.channelIntegrationId}:${i.value}`);
  const create = async (identities: Record<string, unknown>[]) =>
    (dataOf(await call(CREATE, { i: { name: 'Ada', identities } })).createContactApi as { id: string }).id;
  const identitiesOf = async (id: string) =>
    (dataOf(await call(GET, { id })).contactApi as { identities: Identity[] }).identities;
  const userId = (channelIntegrationId: string, value: string) => ({
    type: 'CHANNEL_USER_ID',
    value,
    channelIntegrationId,
  });

  /** A connected channel of a kind, as connecting leaves its `channels` row (what FindChannels reads). */
  async function channelOf(orgId: string, type: ChannelType): Promise<string> {
    const at = now();
    const id = newId(at);
    await harness.stack.channels.dataSource.getRepository(ChannelRow).insert({
      id,
      orgId,
      type,
      status: ChannelStatus.ACTIVE,
      name: `${type} channel`,
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    });
    return id;
  }

  /** A chat of the contact on a channel, opened as channels' inbound consumer opens it; contacts learns of it by event. */
  async function openChat(contactId: string, channelId: string, channelType: ChannelType): Promise<void> {
    const inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
    try {
      const chat = await unary(
        inbox.openChat.bind(inbox),
        { channelId, contact: { _id: contactId, name: 'Ada' }, channelType },
        harness.stack.signer.metadata(systemPrincipal(org.id), 'inbox'),
      );
      const identities = harness.stack.contacts.dataSource.getRepository(IdentityRow);
      await eventually(async () => (await identities.countBy({ orgId: org.id, value: chat._id })) > 0);
    } finally {
      inbox.close();
    }
  }

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg('ChatAppA ids');
    key = (await org.mintKey([ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE, ApiScope.PII_READ])).key;
    chatAppA = await channelOf(org.id, ChannelType.CHAT_APP_A);
    chatAppB = await channelOf(org.id, ChannelType.CHAT_APP_B);
  });
  after(async () => harness.stop());

  it('answers true for a contact without a ChatAppA chat, and an update replaces its ChatAppA id', async () => {
    const id = await create([userId(chatAppA, '15550003001')]);
    expect(await editable(id)).to.equal(true);
    const updated = dataOf(await call(UPDATE, { id, i: { identities: [userId(chatAppA, '15550003002')] } }))
      .updateContactApi as { identities: Identity[] };
    expect(userIds(updated.identities)).to.deep.equal([`${chatAppA}:15550003002`]);
  });

  it('answers false once the contact has a ChatAppA chat, and an update or upsert of its id is FAILED_PRECONDITION', async () => {
    const id = await create([userId(chatAppA, '15550003011')]);
    await openChat(id, chatAppA, ChannelType.CHAT_APP_A);
    expect(await editable(id)).to.equal(false);
    const refused = await call(UPDATE, { id, i: { identities: [userId(chatAppA, '15550003012')] } });
    expectError(refused, 200, 'FAILED_PRECONDITION');
    expect(refused.body.errors?.[0]?.extensions?.field).to.equal('identities[0]');
    const externalId = `crm-${newId()}`;
    dataOf(await call(UPDATE, { id, i: { externalId } }));
    expectError(
      await call(UPSERT, { i: { externalId, identities: [userId(chatAppA, '15550003013')] } }),
      200,
      'FAILED_PRECONDITION',
    );
    expect(userIds(await identitiesOf(id))).to.deep.equal([`${chatAppA}:15550003011`]);
    // Giving the id it already has changes nothing and is not an edit.
    dataOf(await call(UPDATE, { id, i: { identities: [userId(chatAppA, '15550003011')] } }));
  });

  it('answers true while the contact only has chats on other kinds of channels', async () => {
    const id = await create([userId(chatAppA, '15550003021')]);
    await openChat(id, chatAppB, ChannelType.CHAT_APP_B);
    expect(await editable(id)).to.equal(true);
  });

  it('only adds user ids on other kinds of channels, whatever chats the contact has', async () => {
    const id = await create([userId(chatAppB, 'b-1')]);
    await openChat(id, chatAppA, ChannelType.CHAT_APP_A);
    const updated = dataOf(await call(UPDATE, { id, i: { identities: [userId(chatAppB, 'b-2')] } }))
      .updateContactApi as { identities: Identity[] };
    expect(userIds(updated.identities)).to.have.members([`${chatAppB}:b-1`, `${chatAppB}:b-2`]);
  });

  it('answers FORBIDDEN without CONTACTS_READ', async () => {
    const id = await create([]);
    const other = (await org.mintKey([ApiScope.CONTACTS_MANAGE])).key;
    expectError(await call(EDITABLE, { c: id }, other), 403, 'FORBIDDEN');
  });

  it("answers NOT_FOUND for another org's contact and an unknown one, BAD_USER_INPUT for a malformed id", async () => {
    const id = await create([]);
    const stranger = await harness.newOrg('Stranger');
    const strangerKey = (await stranger.mintKey([ApiScope.CONTACTS_READ])).key;
    expectError(await call(EDITABLE, { c: id }, strangerKey), 200, 'NOT_FOUND');
    expectError(await call(EDITABLE, { c: newId() }), 200, 'NOT_FOUND');
    const malformed = await call(EDITABLE, { c: 'nope' });
    expectError(malformed, 200, 'BAD_USER_INPUT');
    expect(malformed.body.errors?.[0]?.extensions?.field).to.equal('contactId');
  });
});
