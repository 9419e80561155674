import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import {
  ApiScope,
  PrincipalKind,
  apiKeyPrincipal,
  eventually,
  newId,
  principalFor,
  rejection,
  systemPrincipal,
  unary,
} from '@svc/kit';
import { AuthorType, ChatStatus, DeliveryStatus, MediaType, MessageType } from '@svc/proto/inbox/v1';
import { VisitorEventRow } from '../src/entities';
import { AGENT_SCOPES, VisitorStack, type VisitorChatFixture } from './visitor-stack';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.alloc(17, 1),
]);

/** Delivery status, read marks, identification moves, typing and visitor uploads (docs/decisions/0082-0084). */
describe('inbox: delivery and the rest of the visitor side', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  const report = (
    principal: VisitorChatFixture['visitor'],
    chatId: string,
    messageIds: string[],
    to: DeliveryStatus,
    failureReason?: string,
  ) =>
    unary(
      stack.inbox.updateDeliveryStatus.bind(stack.inbox),
      { chatId, messageIds, status: to, failureReason },
      stack.as(principal),
    );
  const statusOf = async (fixture: VisitorChatFixture, messageId: string) =>
    (await stack.visitorMessages(fixture.visitor, fixture.chat._id)).data.find((m) => m._id === messageId)
      ?.deliveryStatus;

  describe('InboxService.UpdateDeliveryStatus', () => {
    it('moves an agent message forward only: QUEUED → SENT → DELIVERED → READ, never back', async () => {
      const fixture = await stack.visitorChat();
      const { orgId, chat, visitor, agent } = fixture;
      const reply = await stack.send(agent, chat._id, 'hello');
      expect(reply.deliveryStatus).to.equal(DeliveryStatus.QUEUED);
      const system = systemPrincipal(orgId);
      expect((await report(system, chat._id, [reply._id], DeliveryStatus.SENT)).changedMessageIds).to.deep.equal([
        reply._id,
      ]);
      expect((await report(visitor, chat._id, [reply._id], DeliveryStatus.DELIVERED)).changedMessageIds).to.deep.equal([
        reply._id,
      ]);
      expect((await report(system, chat._id, [reply._id], DeliveryStatus.SENT)).changedMessageIds).to.deep.equal([]);
      expect((await report(visitor, chat._id, [reply._id], DeliveryStatus.DELIVERED)).changedMessageIds).to.deep.equal(
        [],
      );
      expect(
        (await report(system, chat._id, [reply._id], DeliveryStatus.FAILED, 'too late')).changedMessageIds,
      ).to.deep.equal([]);
      expect((await report(visitor, chat._id, [reply._id], DeliveryStatus.READ)).changedMessageIds).to.deep.equal([
        reply._id,
      ]);
      expect(await statusOf(fixture, reply._id)).to.equal(DeliveryStatus.READ);
      const events = await stack.visitorEvents(visitor, chat._id);
      expect(events.data.map((e) => e.type)).to.deep.equal([
        'message.created',
        'message.status_changed',
        'message.status_changed',
        'message.status_changed',
      ]);
      const published = await eventually(async () => {
        const changes = stack.eventsOf(chat._id).filter((e) => e.type === 'message.status_changed');
        return changes.length === 3 && changes;
      });
      expect(published.map((e) => [e.message?.deliveryStatus, e.message?.visitorSeq])).to.deep.equal([
        [DeliveryStatus.SENT, 2],
        [DeliveryStatus.DELIVERED, 3],
        [DeliveryStatus.READ, 4],
      ]);
      expect(published[0]?.message).to.include({
        channelId: chat.channelId,
        contactId: chat.contact?._id,
        authorType: AuthorType.API_KEY,
      });
    });

    it('fails only from QUEUED or SENT, with a reason; leaves inbound messages and notes alone', async () => {
      const { orgId, chat, visitor, agent } = await stack.visitorChat();
      const system = systemPrincipal(orgId);
      const reply = await stack.send(agent, chat._id, 'hello');
      const note = await stack.send(agent, chat._id, 'note', true);
      const inbound = await stack.receive(visitor, chat._id, 'hi');
      expect((await rejection(report(system, chat._id, [reply._id], DeliveryStatus.FAILED))).code).to.equal(
        status.INVALID_ARGUMENT,
      );
      const failed = await report(
        system,
        chat._id,
        [reply._id, note._id, inbound._id],
        DeliveryStatus.FAILED,
        'bounced',
      );
      expect(failed.changedMessageIds).to.deep.equal([reply._id]);
      expect((await report(system, chat._id, [reply._id], DeliveryStatus.READ)).changedMessageIds).to.deep.equal([]);
      const event = await eventually(async () =>
        stack.eventsOf(chat._id).find((e) => e.type === 'message.status_changed'),
      );
      expect(event.message).to.include({ deliveryStatus: DeliveryStatus.FAILED, failureReason: 'bounced' });
    });

    it('takes edits and delivery reports of the same messages at once, each numbered once', async () => {
      const { orgId, chat, visitor, agent } = await stack.visitorChat();
      const sent = [];
      for (let i = 0; i < 5; i += 1) sent.push(await stack.send(agent, chat._id, `m${i}`));
      const ids = sent.map((m) => m._id);
      const edit = (id: string, text: string) =>
        unary(stack.inbox.updateMessage.bind(stack.inbox), { messageId: id, text }, stack.as(agent));
      await Promise.all([
        ...ids.map((id) => edit(id, `edited ${id}`)),
        report(systemPrincipal(orgId), chat._id, [...ids].reverse(), DeliveryStatus.SENT),
        report(visitor, chat._id, ids, DeliveryStatus.DELIVERED),
        ...ids.map((id) => edit(id, `again ${id}`)),
      ]);
      const { data } = await stack.visitorEvents(visitor, chat._id);
      expect(data.map((e) => e.seq)).to.deep.equal(Array.from({ length: data.length }, (_, i) => i + 1));
      expect(data.filter((e) => e.type === 'message.updated')).to.have.length(10);
      // DELIVERED first makes a later SENT a step back, which is dropped: 5 or 10 status changes.
      expect(data.filter((e) => e.type === 'message.status_changed').length).to.be.oneOf([5, 10]);
    });

    it('lets a visitor report only DELIVERED and READ, and only in its own chat', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      const other = await stack.visitorChat();
      const reply = await stack.send(agent, chat._id, 'hello');
      for (const to of [DeliveryStatus.SENT, DeliveryStatus.FAILED])
        expect((await rejection(report(visitor, chat._id, [reply._id], to, 'x'))).code).to.equal(
          status.INVALID_ARGUMENT,
        );
      expect((await rejection(report(other.visitor, chat._id, [reply._id], DeliveryStatus.READ))).code).to.equal(
        status.NOT_FOUND,
      );
      expect((await rejection(report(agent, chat._id, [reply._id], DeliveryStatus.READ))).code).to.equal(
        status.PERMISSION_DENIED,
      );
    });
  });

  describe('VisitorService.MarkVisitorRead', () => {
    it('reads the member messages up to the given one and moves the unread count', async () => {
      const fixture = await stack.visitorChat();
      const { chat, visitor, agent } = fixture;
      const first = await stack.send(agent, chat._id, 'one');
      const second = await stack.send(agent, chat._id, 'two');
      const third = await stack.send(agent, chat._id, 'three');
      await stack.send(agent, chat._id, 'note', true);
      expect((await stack.visitorChatOf(visitor, chat._id)).unreadCount).to.equal(3);
      const read = await unary(
        stack.visitorService.markVisitorRead.bind(stack.visitorService),
        { chatId: chat._id, messageId: second._id },
        stack.as(visitor),
      );
      expect(read.unreadCount).to.equal(1);
      expect(await statusOf(fixture, first._id)).to.equal(DeliveryStatus.READ);
      expect(await statusOf(fixture, second._id)).to.equal(DeliveryStatus.READ);
      expect(await statusOf(fixture, third._id)).to.equal(DeliveryStatus.QUEUED);
      const events = await stack.visitorEvents(visitor, chat._id, 3);
      expect(events.data.map((e) => [e.type, e.message?._id])).to.deep.equal([
        ['message.status_changed', first._id],
        ['message.status_changed', second._id],
      ]);
      const chatRead = await eventually(async () => stack.eventsOf(chat._id).find((e) => e.type === 'chat.read'));
      expect(chatRead.chat?.readerId).to.equal(visitor.visitorContactId);
      // Reading an older message again changes nothing.
      const again = await unary(
        stack.visitorService.markVisitorRead.bind(stack.visitorService),
        { chatId: chat._id, messageId: first._id },
        stack.as(visitor),
      );
      expect(again.unreadCount).to.equal(1);
      expect((await stack.visitorEvents(visitor, chat._id, 5)).data).to.deep.equal([]);
    });
  });

  describe('InboxService.ReadMessages / ReadAllMessages / ReadAllConversation (the team reads a web chat)', () => {
    it("makes the visitor's own messages up to the read one READ, each a numbered status change the visitor sees", async () => {
      const fixture = await stack.visitorChat();
      const { chat, visitor, agent } = fixture;
      const first = await stack.receive(visitor, chat._id, 'one');
      const second = await stack.receive(visitor, chat._id, 'two');
      const third = await stack.receive(visitor, chat._id, 'three');
      expect(await statusOf(fixture, first._id)).to.equal(DeliveryStatus.NOT_APPLICABLE);
      const readMessages = (messageIds: string[]) =>
        unary(stack.inbox.readMessages.bind(stack.inbox), { chatId: chat._id, messageIds }, stack.as(agent));
      await readMessages([second._id]);
      expect(await statusOf(fixture, first._id)).to.equal(DeliveryStatus.READ);
      expect(await statusOf(fixture, second._id)).to.equal(DeliveryStatus.READ);
      expect(await statusOf(fixture, third._id)).to.equal(DeliveryStatus.NOT_APPLICABLE);
      const events = await stack.visitorEvents(visitor, chat._id, 3);
      expect(events.data.map((e) => [e.type, e.message?._id, e.message?.deliveryStatus])).to.deep.equal([
        ['message.status_changed', first._id, DeliveryStatus.READ],
        ['message.status_changed', second._id, DeliveryStatus.READ],
      ]);
      const published = await eventually(async () => {
        const changes = stack.eventsOf(chat._id).filter((e) => e.type === 'message.status_changed');
        return changes.length === 2 && changes;
      });
      expect(published.map((e) => [e.message?.messageId, e.message?.visitorSeq])).to.deep.equal([
        [first._id, 4],
        [second._id, 5],
      ]);

      // Reading the same again changes nothing; reading all reaches the last one.
      await readMessages([first._id]);
      expect((await stack.visitorEvents(visitor, chat._id, 5)).data).to.deep.equal([]);
      await unary(stack.inbox.readAllMessages.bind(stack.inbox), { chatId: chat._id }, stack.as(agent));
      expect(await statusOf(fixture, third._id)).to.equal(DeliveryStatus.READ);
      expect((await stack.visitorEvents(visitor, chat._id, 5)).data.map((e) => e.message?._id)).to.deep.equal([
        third._id,
      ]);
    });

    it("makes the visitor's messages READ when the team reads the whole conversation", async () => {
      const fixture = await stack.visitorChat();
      const { chat, visitor, agent } = fixture;
      const message = await stack.receive(visitor, chat._id, 'hello?');
      await unary(
        stack.inbox.readAllConversation.bind(stack.inbox),
        { conversationId: chat.conversationId },
        stack.as(agent),
      );
      expect(await statusOf(fixture, message._id)).to.equal(DeliveryStatus.READ);
    });

    it("leaves a messaging platform's inbound messages NOT_APPLICABLE (the platform has its own receipts)", async () => {
      const orgId = newId();
      const system = systemPrincipal(orgId);
      const platform = await unary(
        stack.inbox.openChat.bind(stack.inbox),
        { channelId: newId(), contact: { _id: newId(), name: 'Ada' }, channelType: 'CHAT_APP_A' },
        stack.as(system),
      );
      const inbound = await stack.receive(system, platform._id, 'hi');
      const agent = apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE, ApiScope.MESSAGES_READ]);
      await unary(stack.inbox.readAllMessages.bind(stack.inbox), { chatId: platform._id }, stack.as(agent));
      const messages = await unary(
        stack.inbox.getMessages.bind(stack.inbox),
        { chatId: platform._id, input: {} },
        stack.as(agent),
      );
      expect(messages.data.find((m) => m._id === inbound._id)?.deliveryStatus).to.equal(DeliveryStatus.NOT_APPLICABLE);
    });
  });

  describe('InboxService.MoveChatsToContact', () => {
    it("moves the anonymous contact's chats on the channel to the identified contact, once", async () => {
      const anonymous = await stack.visitorChat();
      const { orgId, chat, visitor, agent } = anonymous;
      const channelId = visitor.visitorChannelId;
      await stack.receive(visitor, chat._id, 'before identifying');
      const otherChannel = await stack.visitorChat(orgId, newId(), visitor.visitorContactId);
      const identifiedId = newId();
      const move = () =>
        unary(
          stack.inbox.moveChatsToContact.bind(stack.inbox),
          {
            channelId,
            fromContactId: visitor.visitorContactId,
            toContact: { _id: identifiedId, name: 'Ada Known', email: 'ada@example.com' },
          },
          stack.as(systemPrincipal(orgId)),
        );
      expect((await move()).chatIds).to.deep.equal([chat._id]);
      expect((await move()).chatIds).to.deep.equal([]);
      const moved = await unary(stack.inbox.getChat.bind(stack.inbox), { chatId: chat._id }, stack.as(agent));
      expect(moved.contact).to.deep.include({ _id: identifiedId, name: 'Ada Known', email: 'ada@example.com' });
      const conversation = await unary(
        stack.inbox.getConversation.bind(stack.inbox),
        { conversationId: moved.conversationId },
        stack.as(agent),
      );
      expect(conversation.contact?._id).to.equal(identifiedId);
      const stayed = await unary(
        stack.inbox.getChat.bind(stack.inbox),
        { chatId: otherChannel.chat._id },
        stack.as(agent),
      );
      expect(stayed.contact?._id).to.equal(visitor.visitorContactId);
      // The old session no longer reaches the chat; the identified one does, with its history.
      expect((await rejection(stack.visitorChatOf(visitor, chat._id))).code).to.equal(status.NOT_FOUND);
      const identified = { ...visitor, visitorContactId: identifiedId };
      const history = await stack.visitorMessages(identified, chat._id);
      expect(history.data.map((m) => m.text)).to.deep.equal(['before identifying']);
      const updated = await eventually(async () =>
        stack.eventsOf(chat._id).find((e) => e.type === 'chat.updated' && e.chat?.contactId === identifiedId),
      );
      expect(updated.chat?.conversationId).to.equal(moved.conversationId);
      expect(
        (
          await rejection(
            unary(
              stack.inbox.moveChatsToContact.bind(stack.inbox),
              { channelId, fromContactId: visitor.visitorContactId, toContact: { _id: identifiedId } },
              stack.as(agent),
            ),
          )
        ).code,
      ).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('typing', () => {
    it('emits chat.typing for the visitor (CONTACT) and for an agent by display name only', async () => {
      const org = await stack.identity.newOrg();
      const { chat, visitor } = await stack.visitorChat(org.id);
      const owner = { ...principalFor(PrincipalKind.MEMBER_SESSION, org.id, AGENT_SCOPES), memberId: org.ownerId };
      await unary(
        stack.visitorService.setVisitorTyping.bind(stack.visitorService),
        { chatId: chat._id, typing: true },
        stack.as(visitor),
      );
      await unary(stack.inbox.setChatTyping.bind(stack.inbox), { chatId: chat._id, typing: true }, stack.as(owner));
      await unary(stack.inbox.setChatTyping.bind(stack.inbox), { chatId: chat._id, typing: false }, stack.as(owner));
      const typing = await eventually(async () => {
        const seen = stack.eventsOf(chat._id).filter((e) => e.type === 'chat.typing');
        return seen.length === 3 && seen;
      });
      const shown = (authorType: AuthorType, displayName: string, on: boolean) => ({
        chatId: chat._id,
        channelId: chat.channelId,
        authorType,
        displayName,
        avatarUrl: '',
        typing: on,
      });
      expect(typing.map((e) => e.typing)).to.deep.equal([
        shown(AuthorType.CONTACT, '', true),
        shown(AuthorType.MEMBER, 'Olive Owner', true),
        shown(AuthorType.MEMBER, 'Olive Owner', false),
      ]);
      // Typing is not a visitor event: nothing is numbered.
      expect((await stack.visitorChatOf(visitor, chat._id)).lastEventSeq).to.equal(0);
      const reader = principalFor(PrincipalKind.API_KEY, org.id, []);
      expect(
        (
          await rejection(
            unary(stack.inbox.setChatTyping.bind(stack.inbox), { chatId: chat._id, typing: true }, stack.as(reader)),
          )
        ).code,
      ).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('visitor uploads', () => {
    const upload = (principal: VisitorChatFixture['visitor']) =>
      unary(
        stack.media.createMedia.bind(stack.media),
        { file: { fileName: 'photo.png', declaredContentType: 'image/png', content: PNG } },
        stack.as(principal),
      );

    it('attaches only media the visitor uploaded itself, with signed links and no uploader ids', async () => {
      const { orgId, chat, visitor, agent } = await stack.visitorChat();
      const other = await stack.visitorChat(orgId, visitor.visitorChannelId);
      const own = await upload(visitor);
      expect(own).to.include({ type: MediaType.IMAGE, contentType: 'image/png', uploaderType: AuthorType.CONTACT });
      const foreign = await upload(other.visitor);
      const agents = await upload(agent);
      for (const mediaId of [foreign._id, agents._id])
        expect((await rejection(stack.receive(visitor, chat._id, '', { mediaIds: [mediaId] }))).code).to.equal(
          status.NOT_FOUND,
        );
      const message = await stack.receive(visitor, chat._id, 'my photo', { mediaIds: [own._id] });
      expect(message.type).to.equal(MessageType.MEDIA);
      const [shown] = (await stack.visitorMessages(visitor, chat._id)).data;
      expect(shown?.media.map((m) => m._id)).to.deep.equal([own._id]);
      expect(shown?.media[0]?.url).to.match(/\/media\/[0-9a-f]{24}\?expires=\d+&signature=/);
      expect(shown?.media[0]).to.not.have.property('uploaderId');
    });

    it('refuses a visitor upload the inbox sniffs as not allowed, and every other media call', async () => {
      const { visitor } = await stack.visitorChat();
      const script = await rejection(
        unary(
          stack.media.createMedia.bind(stack.media),
          {
            file: {
              fileName: 'archive.png',
              declaredContentType: 'image/png',
              content: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0]), Buffer.alloc(32)]),
            },
          },
          stack.as(visitor),
        ),
      );
      expect(script.code).to.equal(status.INVALID_ARGUMENT);
      const many = await rejection(
        unary(stack.media.uploadMultipleMedia.bind(stack.media), { files: [] }, stack.as(visitor)),
      );
      expect(many.code).to.equal(status.PERMISSION_DENIED);
    });

    it('numbers a close the visitor sees, with the chat status', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      await unary(stack.inbox.closeChat.bind(stack.inbox), { chatId: chat._id }, stack.as(agent));
      expect((await stack.visitorChatOf(visitor, chat._id)).status).to.equal(ChatStatus.CLOSED);
      expect((await stack.visitorEvents(visitor, chat._id)).data.map((e) => e.type)).to.deep.equal(['chat.closed']);
    });
  });

  describe('visitor event retention', () => {
    it('keeps the log while the chat exists and deletes it with the chat', async () => {
      const { orgId, chat, visitor } = await stack.visitorChat();
      await stack.receive(visitor, chat._id, 'hello');
      const logged = () => stack.app.dataSource.manager.countBy(VisitorEventRow, { chatId: chat._id });
      expect(await logged()).to.equal(1);
      const deleter = principalFor(PrincipalKind.API_KEY, orgId, [ApiScope.CONVERSATIONS_DELETE]);
      await unary(stack.inbox.deleteChat.bind(stack.inbox), { chatId: chat._id }, stack.as(deleter));
      expect(await logged()).to.equal(0);
    });
  });
});
