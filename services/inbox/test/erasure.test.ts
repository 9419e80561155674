import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { In } from 'typeorm';
import {
  ErasureConfirmations,
  apiKeyPrincipal,
  callerMetadata,
  checkErasurePart,
  documentedErasureKinds,
  dropTestDatabase,
  eventually,
  grpcClient,
  newId,
  publishEraseRequest,
  rejection,
  systemPrincipal,
  testDbUrl,
  testEnv,
  testErasure,
  unary,
  type Principal,
} from '@svc/kit';
import { IdentityForTests } from '@svc/identity';
import { ErasureParticipantServiceClient } from '@svc/proto/erasure/v1';
import { AuthorType, InboxServiceClient, MessageType } from '@svc/proto/inbox/v1';
import { MediaServiceClient } from '@svc/proto/inbox/v1/media';
import { InboxApp, inboxConfig } from '../src';
import { BlobDeletionRow, MessageReactionRow, MessageTermRow, ReadStateRow, VisitorEventRow } from '../src/entities';
import { ContactCopy, type ContactDisplay } from '../src/domain/contact-copy';
import { INBOX_ERASURE_KINDS } from '../src/domain/erasure/inbox-erasure';
import { AGENT_SCOPES, PNG, VisitorStack } from './visitor-stack';

/** Whether the blob store still holds the bytes of `mediaId` (the key is `<orgId>/<mediaId>`). */
async function blobExists(app: InboxApp, orgId: string, mediaId: string): Promise<boolean> {
  const stream = await app.blobs.open(`${orgId}/${mediaId}`);
  stream?.destroy();
  return stream !== undefined;
}

/** The inbox's rows about one contact, built through the RPCs, and what stays around them. */
interface ContactWorld {
  orgId: string;
  contactId: string;
  chatIds: string[];
  /** Media the erasure removes: the contact's uploads (attached or not), an agent's attached only here. */
  erasedMediaIds: string[];
  /** An agent's media also shown in another contact's chat, and that chat. */
  sharedMediaId: string;
  otherChatId: string;
  /** The same contact id's chat in another org. */
  elsewhere: { orgId: string; chatId: string };
}

async function contactWorld(stack: VisitorStack): Promise<ContactWorld> {
  const orgId = newId();
  const contactId = newId();
  const first = await stack.visitorChat(orgId, newId(), contactId);
  const second = await stack.visitorChat(orgId, newId(), contactId);
  const other = await stack.visitorChat(orgId);
  const elsewhere = await stack.visitorChat(newId(), newId(), contactId);
  const system = systemPrincipal(orgId);
  const agent = apiKeyPrincipal(orgId, AGENT_SCOPES);
  const upload = async (principal: Principal, uploader?: string) =>
    (
      await unary(
        stack.media.createMedia.bind(stack.media),
        { file: { fileName: 'photo.png', declaredContentType: 'image/png', content: PNG }, contactId: uploader },
        stack.as(principal),
      )
    )._id;
  const sendMedia = (chatId: string, mediaId: string) =>
    unary(
      stack.inbox.sendMessage.bind(stack.inbox),
      { chatId, input: { text: 'see attached', internal: false, type: MessageType.MEDIA, media: { ids: [mediaId] } } },
      stack.as(agent),
    );
  const contactPhoto = await upload(system, contactId);
  await stack.receive(system, first.chat._id, 'my holiday photo', { mediaIds: [contactPhoto] });
  const contactUnattached = await upload(system, contactId);
  await stack.receive(system, second.chat._id, 'hello again');
  const agentOnly = await upload(agent);
  const reply = await sendMedia(first.chat._id, agentOnly);
  const shared = await upload(agent);
  await sendMedia(first.chat._id, shared);
  const bystanderMessage = await sendMedia(other.chat._id, shared);
  // A reaction of the contact elsewhere: no RPC lets a contact react yet, so it is written as a channel would.
  await stack.app.dataSource.manager.insert(MessageReactionRow, {
    id: newId(),
    orgId,
    messageId: bystanderMessage._id,
    reactorId: contactId,
    reactorType: AuthorType.CONTACT,
    emoji: '❤️',
    createdAt: new Date(),
  });
  await stack.send(agent, second.chat._id, 'a note about this person', true);
  await unary(stack.inbox.addMessageReaction.bind(stack.inbox), { messageId: reply._id, emoji: '👍' }, stack.as(agent));
  await unary(stack.inbox.readAllMessages.bind(stack.inbox), { chatId: first.chat._id }, stack.as(agent));
  return {
    orgId,
    contactId,
    chatIds: [first.chat._id, second.chat._id],
    erasedMediaIds: [contactPhoto, contactUnattached, agentOnly],
    sharedMediaId: shared,
    otherChatId: other.chat._id,
    elsewhere: { orgId: elsewhere.orgId, chatId: elsewhere.chat._id },
  };
}

describe('InboxErasure', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  const getChat = (orgId: string, chatId: string) =>
    unary(stack.inbox.getChat.bind(stack.inbox), { chatId }, stack.as(apiKeyPrincipal(orgId, AGENT_SCOPES)));

  it('previews, then erases exactly that: every thread, message, note, reaction (its own anywhere) and the media of the contact', async () => {
    const world = await contactWorld(stack);
    const app = stack.app;
    const counts = await checkErasurePart(app.dataSource, app.erasure!, testErasure(world.orgId, world.contactId));
    expect(counts).to.deep.equal([
      { kind: 'conversations', count: 1 },
      { kind: 'chats', count: 2 },
      { kind: 'messages', count: 4 },
      { kind: 'notes', count: 1 },
      { kind: 'reactions', count: 2 },
      { kind: 'media', count: 3 },
    ]);
    for (const chatId of world.chatIds)
      expect((await rejection(getChat(world.orgId, chatId))).code).to.equal(status.NOT_FOUND);
    const manager = app.dataSource.manager;
    for (const row of [MessageTermRow, ReadStateRow, VisitorEventRow])
      expect(await manager.countBy(row, { chatId: In(world.chatIds) }), row.name).to.equal(0);
    for (const mediaId of world.erasedMediaIds)
      expect(await blobExists(app, world.orgId, mediaId), mediaId).to.equal(false);
    expect(await manager.countBy(BlobDeletionRow, {})).to.equal(0);
  });

  it("leaves other contacts' threads, media they show and the same contact id in another org", async () => {
    const world = await contactWorld(stack);
    await checkErasurePart(stack.app.dataSource, stack.app.erasure!, testErasure(world.orgId, world.contactId));
    expect((await getChat(world.orgId, world.otherChatId))._id).to.equal(world.otherChatId);
    expect(await blobExists(stack.app, world.orgId, world.sharedMediaId)).to.equal(true);
    expect(await stack.app.dataSource.manager.countBy(MessageReactionRow, { reactorId: world.contactId })).to.equal(0);
    const media = await unary(
      stack.media.listChatMedia.bind(stack.media),
      { chatId: world.otherChatId, input: { limit: 10 } },
      stack.as(apiKeyPrincipal(world.orgId, AGENT_SCOPES)),
    );
    expect(media.data.map((item) => item._id)).to.deep.equal([world.sharedMediaId]);
    const elsewhere = await getChat(world.elsewhere.orgId, world.elsewhere.chatId);
    expect(elsewhere.contact?._id).to.equal(world.contactId);
  });

  it('erases on contact.erase_requested and confirms its counts; a redelivery confirms zeros', async () => {
    const world = await contactWorld(stack);
    const prefix = stack.app.config.KAFKA_TOPIC_PREFIX;
    const confirmations = await new ErasureConfirmations().start(stack.app.bus, prefix);
    try {
      const erasure = testErasure(world.orgId, world.contactId);
      await publishEraseRequest(stack.app.bus, prefix, erasure);
      const first = await confirmations.waitFor(erasure.erasureId, 'inbox');
      expect(first.counts.find((c) => c.kind === 'chats')?.count).to.equal(2);
      expect((await rejection(getChat(world.orgId, world.chatIds[0]!))).code).to.equal(status.NOT_FOUND);
      await publishEraseRequest(stack.app.bus, prefix, erasure);
      await eventually(async () => confirmations.of(erasure.erasureId, 'inbox').length === 2, 15_000, 'second');
      expect(confirmations.of(erasure.erasureId, 'inbox')[1]?.counts.every((c) => c.count === 0)).to.equal(true);
    } finally {
      await confirmations.stop();
    }
  });

  it("is documented with the kinds it counts, in docs/erasure.md's table", () => {
    expect(documentedErasureKinds('inbox')).to.deep.equal([...INBOX_ERASURE_KINDS]);
  });

  it('answers PreviewErasure for a SYSTEM caller of the org, and refuses anyone else', async () => {
    const world = await contactWorld(stack);
    const client = grpcClient(ErasureParticipantServiceClient, `127.0.0.1:${stack.app.grpcPort}`);
    try {
      const preview = (principal: Principal) =>
        unary(client.previewErasure.bind(client), { contactId: world.contactId }, callerMetadata(principal, 'inbox'));
      const answer = await preview(systemPrincipal(world.orgId));
      expect(answer.service).to.equal('inbox');
      expect(answer.counts.find((c) => c.kind === 'messages')?.count).to.equal(4);
      const refused = await rejection(preview(apiKeyPrincipal(world.orgId, AGENT_SCOPES)));
      expect(refused.code).to.equal(status.PERMISSION_DENIED);
    } finally {
      client.close();
    }
  });
});

describe('InboxErasure blobs', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'inbox-erasure-'));
  const config = inboxConfig(
    testEnv('inbox', {
      DB_URL: testDbUrl('inbox', path.join(dir, 'inbox.sqlite')),
      MEDIA_DIR: path.join(dir, 'media'),
    }),
  );
  let identity: IdentityForTests;

  before(async () => {
    identity = new IdentityForTests();
    await identity.start();
  });
  after(async () => {
    await identity.dispose();
    await dropTestDatabase(config.DB_URL);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('deletes the bytes of a committed erasure after a kill: the next start sweeps them', async () => {
    const first = new InboxApp(config, { identityAddress: () => identity.address });
    await first.start();
    const orgId = newId();
    const contactId = newId();
    let mediaId: string;
    try {
      const system = systemPrincipal(orgId);
      const address = `127.0.0.1:${first.grpcPort}`;
      const media = grpcClient(MediaServiceClient, address);
      const inbox = grpcClient(InboxServiceClient, address);
      const as = (principal: Principal) => callerMetadata(principal, 'inbox');
      mediaId = (
        await unary(
          media.createMedia.bind(media),
          { file: { fileName: 'photo.png', declaredContentType: 'image/png', content: PNG }, contactId },
          as(system),
        )
      )._id;
      await unary(inbox.openChat.bind(inbox), { channelId: newId(), contact: { _id: contactId } }, as(system));
      media.close();
      inbox.close();
      // The erasure commits, and the process dies before its afterCommit deletes the bytes.
      const erased = await first.dataSource.transaction((manager) =>
        first.erasure!.erase(manager, testErasure(orgId, contactId)),
      );
      expect(erased.counts.find((c) => c.kind === 'media')?.count).to.equal(1);
      expect(await blobExists(first, orgId, mediaId)).to.equal(true);
    } finally {
      await first.stop();
    }
    const second = new InboxApp(config, { identityAddress: () => identity.address });
    await second.start();
    try {
      await eventually(async () => !(await blobExists(second, orgId, mediaId)), 15_000, 'the swept blob');
      await eventually(
        async () => (await second.dataSource.manager.countBy(BlobDeletionRow, {})) === 0,
        15_000,
        'no deletion left',
      );
    } finally {
      await second.stop();
    }
  });
});

describe('ContactCopy', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  it("writes the contact's current display fields onto its chats and conversation, and empties them once unknown", async () => {
    const { orgId, chat, agent } = await stack.visitorChat();
    const other = await stack.visitorChat(orgId);
    const contactId = chat.contact!._id;
    let current: ContactDisplay | undefined = {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      phone: '+15550100199',
    };
    const copy = new ContactCopy(stack.app.dataSource, { displayOf: async () => current });
    expect(await copy.refresh(orgId, contactId)).to.equal(2);
    const read = async (chatId: string) =>
      (await unary(stack.inbox.getChat.bind(stack.inbox), { chatId }, stack.as(agent))).contact;
    expect(await read(chat._id)).to.deep.include({ name: 'Grace Hopper', email: 'grace@example.com' });
    const conversation = await unary(
      stack.inbox.getConversation.bind(stack.inbox),
      { conversationId: chat.conversationId },
      stack.as(agent),
    );
    expect(conversation.contact).to.deep.include({ name: 'Grace Hopper', phone: '+15550100199' });
    expect((await read(other.chat._id))?.name).to.equal('Visitor');
    current = undefined;
    await copy.refresh(orgId, contactId);
    const emptied = await read(chat._id);
    expect([emptied?.name, emptied?.email, emptied?.phone]).to.deep.equal([undefined, undefined, undefined]);
  });
});
