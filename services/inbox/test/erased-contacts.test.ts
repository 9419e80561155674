import { expect } from 'chai';
import { status, type ServiceError } from '@grpc/grpc-js';
import {
  apiKeyPrincipal,
  newId,
  rejection,
  runErasure,
  statementRunning,
  systemPrincipal,
  testErasure,
  unary,
  visitorPrincipal,
  type Principal,
} from '@svc/kit';
import { ChatRow, ConversationRow, ErasedContactRow, MediaRow } from '../src/entities';
import { recordErasedContact, requireNotErased } from '../src/domain/erasure/erased-contacts';
import { AGENT_SCOPES, PNG, VisitorStack } from './visitor-stack';

/** The code and the argument an RPC's refusal names. */
async function refusal(call: Promise<unknown>): Promise<{ code: status; field: unknown }> {
  const error = (await rejection(call)) as ServiceError;
  return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0] };
}

/**
 * After the inbox erased a contact (docs/decisions/0169), no write creates anything for that contact id again: a
 * late handshake's OpenChat, a message in flight, a platform user's or a visitor's upload, a move of an anonymous
 * visitor's chats. The refusal is the NOT_FOUND of a contact nobody knows.
 */
describe('InboxErasure tombstones: nothing is created for an erased contact', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  const manager = () => stack.app.dataSource.manager;
  const openChat = (orgId: string, channelId: string, contactId: string) =>
    unary(
      stack.inbox.openChat.bind(stack.inbox),
      { channelId, contact: { _id: contactId, name: 'Late Visitor' } },
      stack.as(systemPrincipal(orgId)),
    );
  const upload = (principal: Principal, contactId?: string) =>
    unary(
      stack.media.createMedia.bind(stack.media),
      { file: { fileName: 'photo.png', declaredContentType: 'image/png', content: PNG }, contactId },
      stack.as(principal),
    );
  /** A contact with a chat, erased by the inbox's part. */
  async function erased() {
    const fixture = await stack.visitorChat();
    const contactId = fixture.visitor.visitorContactId ?? '';
    const channelId = fixture.visitor.visitorChannelId ?? '';
    await runErasure(stack.app.dataSource, stack.app.erasure!, testErasure(fixture.orgId, contactId));
    return { orgId: fixture.orgId, contactId, channelId };
  }

  it('the erasure records the contact (ids and a time only), once however often it runs', async () => {
    const { orgId, contactId } = await erased();
    await runErasure(stack.app.dataSource, stack.app.erasure!, testErasure(orgId, contactId));
    const rows = await manager().findBy(ErasedContactRow, { contactId });
    expect(rows.map((row) => Object.keys(row).sort())).to.deep.equal([['contactId', 'erasedAt', 'orgId']]);
    expect(rows[0]?.orgId).to.equal(orgId);
  });

  it('OpenChat refuses an erased contact: NOT_FOUND naming contact._id, no conversation or chat', async () => {
    const { orgId, contactId, channelId } = await erased();
    expect(await refusal(openChat(orgId, channelId, contactId))).to.deep.equal({
      code: status.NOT_FOUND,
      field: 'contact._id',
    });
    expect(await refusal(openChat(orgId, newId(), contactId))).to.include({ code: status.NOT_FOUND });
    expect(await manager().countBy(ChatRow, { orgId, contactId })).to.equal(0);
    expect(await manager().countBy(ConversationRow, { orgId, contactId })).to.equal(0);
    // The same contact id in another org is another contact: it opens.
    expect((await openChat(newId(), channelId, contactId)).contact?._id).to.equal(contactId);
  });

  it('ReceiveMessage refuses a chat of an erased contact (a row left from before the tombstones), SYSTEM and VISITOR', async () => {
    const fixture = await stack.visitorChat();
    const contactId = fixture.visitor.visitorContactId ?? '';
    await recordErasedContact(manager(), fixture.orgId, contactId, new Date());
    for (const principal of [systemPrincipal(fixture.orgId), fixture.visitor])
      expect(await refusal(stack.receive(principal, fixture.chat._id, 'still here?'))).to.deep.equal({
        code: status.NOT_FOUND,
        field: 'contactId',
      });
    const messages = await unary(
      stack.inbox.getMessages.bind(stack.inbox),
      { chatId: fixture.chat._id, input: { limit: 10 } },
      stack.as(apiKeyPrincipal(fixture.orgId, AGENT_SCOPES)),
    );
    expect(messages.data).to.deep.equal([]);
  });

  it("CreateMedia refuses an erased contact's upload (a channel's for the contact, the visitor's own): nothing stored", async () => {
    const { orgId, contactId, channelId } = await erased();
    const before = await manager().countBy(MediaRow, { orgId });
    expect(await refusal(upload(systemPrincipal(orgId), contactId))).to.deep.equal({
      code: status.NOT_FOUND,
      field: 'contactId',
    });
    expect(await refusal(upload(visitorPrincipal(orgId, contactId, channelId)))).to.deep.equal({
      code: status.NOT_FOUND,
      field: 'contactId',
    });
    expect(await manager().countBy(MediaRow, { orgId })).to.equal(before);
    // An agent's upload in the org is no contact's: stored.
    expect((await upload(apiKeyPrincipal(orgId, AGENT_SCOPES)))._id).to.match(/^[0-9a-f]{24}$/);
  });

  it("MoveChatsToContact refuses to move an anonymous visitor's chats onto an erased contact", async () => {
    const { orgId, contactId, channelId } = await erased();
    const anonymous = await stack.visitorChat(orgId, channelId);
    const move = unary(
      stack.inbox.moveChatsToContact.bind(stack.inbox),
      { channelId, fromContactId: anonymous.visitor.visitorContactId, toContact: { _id: contactId } },
      stack.as(systemPrincipal(orgId)),
    );
    expect(await refusal(move)).to.deep.equal({ code: status.NOT_FOUND, field: 'toContact._id' });
    expect(await manager().countBy(ChatRow, { orgId, contactId })).to.equal(0);
  });
});

/**
 * The check and the erasure racing on the MySQL family (row and gap locks; `npm run test:infra`): SQLite runs
 * transactions one at a time. Each side is held open mid-transaction while the other is shown waiting.
 */
describe('InboxErasure tombstones: a write racing the erasure (MySQL family)', function () {
  const stack = new VisitorStack();
  before(async function () {
    if (!process.env.SVC_TEST_MYSQL_URL) this.skip();
    await stack.start();
  });
  after(async () => {
    if (process.env.SVC_TEST_MYSQL_URL) await stack.stop();
  });

  const waiting = (pattern: string) => statementRunning(stack.app.dataSource, pattern);

  it('an OpenChat arriving while the erasure is uncommitted waits for it, then is refused and opens nothing', async () => {
    const fixture = await stack.visitorChat();
    const contactId = fixture.visitor.visitorContactId ?? '';
    const erasure = stack.app.dataSource.createQueryRunner();
    await erasure.connect();
    await erasure.startTransaction();
    await stack.app.erasure!.erase(erasure.manager, testErasure(fixture.orgId, contactId));
    const open = unary(
      stack.inbox.openChat.bind(stack.inbox),
      { channelId: newId(), contact: { _id: contactId } },
      stack.as(systemPrincipal(fixture.orgId)),
    );
    await waiting('SELECT%FROM `erased_contacts`%');
    await erasure.commitTransaction();
    await erasure.release();
    expect(await refusal(open)).to.deep.equal({ code: status.NOT_FOUND, field: 'contact._id' });
    expect(await stack.app.dataSource.manager.countBy(ChatRow, { contactId })).to.equal(0);
  });

  it('an erasure arriving while a write that checked first is uncommitted waits for it, then erases what it wrote', async () => {
    const orgId = newId();
    const contactId = newId();
    const write = stack.app.dataSource.createQueryRunner();
    await write.connect();
    await write.startTransaction();
    await requireNotErased(write.manager, orgId, contactId, 'contact._id');
    const at = new Date();
    await write.manager.insert(ConversationRow, {
      id: newId(),
      orgId,
      contactId,
      contactName: null,
      contactEmail: null,
      contactPhone: null,
      blocked: false,
      aiEnabled: false,
      createdAt: at,
      updatedAt: at,
      lastMessageAt: null,
    });
    const erasure = runErasure(stack.app.dataSource, stack.app.erasure!, testErasure(orgId, contactId));
    await waiting('INSERT%IGNORE INTO `erased_contacts`%');
    await write.commitTransaction();
    await write.release();
    const erased = await erasure;
    expect(erased.counts.find((c) => c.kind === 'conversations')?.count).to.equal(1);
    expect(await stack.app.dataSource.manager.countBy(ConversationRow, { orgId, contactId })).to.equal(0);
  });
});
