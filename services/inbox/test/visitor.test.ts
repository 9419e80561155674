import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { PrincipalKind, eventually, newId, principalFor, rejection, systemPrincipal, unary } from '@svc/kit';
import { ChatStatus, DeliveryStatus, MessageDirection, AuthorType } from '@svc/proto/inbox/v1';
import { AGENT_SCOPES, VisitorStack } from './visitor-stack';

/** The visitor side of a chat (docs/decisions/0080, 0081): VISITOR principals, the visitor event log. */
describe('inbox: the visitor side of a chat', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  describe('VISITOR isolation', () => {
    it('answers NOT_FOUND for a chat of another contact, another channel or another org, as for an unknown id', async () => {
      const own = await stack.visitorChat();
      const otherContact = await stack.visitorChat(own.orgId, own.visitor.visitorChannelId);
      const otherChannel = await stack.visitorChat(own.orgId, newId(), own.visitor.visitorContactId);
      const otherOrg = await stack.visitorChat(newId(), own.visitor.visitorChannelId, own.visitor.visitorContactId);
      expect((await stack.visitorChatOf(own.visitor, own.chat._id))._id).to.equal(own.chat._id);
      for (const foreign of [otherContact, otherChannel, otherOrg]) {
        const chatId = foreign.chat._id;
        for (const call of [
          () => stack.visitorChatOf(own.visitor, chatId),
          () => stack.visitorMessages(own.visitor, chatId),
          () => stack.visitorEvents(own.visitor, chatId),
          () => stack.receive(own.visitor, chatId, 'hi'),
        ])
          expect((await rejection(call())).code).to.equal(status.NOT_FOUND);
      }
      expect((await rejection(stack.visitorChatOf(own.visitor, newId()))).code).to.equal(status.NOT_FOUND);
      expect((await stack.visitorMessages(otherContact.visitor, otherContact.chat._id)).data).to.deep.equal([]);
    });
  });

  describe('InboxService.ReceiveMessage', () => {
    it('records the visitor message as the contact, visible to agents', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      const message = await stack.receive(visitor, chat._id, 'Hello from the page');
      expect(message).to.include({ authorType: AuthorType.CONTACT, direction: MessageDirection.INBOUND });
      expect(message.authorId).to.equal(visitor.visitorContactId);
      const page = await unary(
        stack.inbox.getMessages.bind(stack.inbox),
        { chatId: chat._id, input: { limit: 10 } },
        stack.as(agent),
      );
      expect(page.data.map((m) => m.text)).to.deep.equal(['Hello from the page']);
    });

    it('answers the first message for a retry with the same externalId, sequential and concurrent', async () => {
      const { chat, visitor } = await stack.visitorChat();
      const first = await stack.receive(visitor, chat._id, 'once', { externalId: 'client-1' });
      const again = await stack.receive(visitor, chat._id, 'once', { externalId: 'client-1' });
      expect(again._id).to.equal(first._id);
      const racing = await Promise.all(
        Array.from({ length: 8 }, () => stack.receive(visitor, chat._id, 'racing', { externalId: 'client-2' })),
      );
      expect(new Set(racing.map((m) => m._id)).size).to.equal(1);
      const other = await stack.visitorChat();
      const elsewhere = await stack.receive(other.visitor, other.chat._id, 'once', { externalId: 'client-1' });
      expect(elsewhere._id).to.not.equal(first._id);
      const { data } = await stack.visitorMessages(visitor, chat._id, { limit: 30 });
      expect(data.map((m) => m.text)).to.deep.equal(['racing', 'once']);
      const events = await stack.visitorEvents(visitor, chat._id);
      expect(events.data.map((e) => e.seq)).to.deep.equal([1, 2]);
    });

    it('refuses an API key and a member (only channels and the visitor write as the contact)', async () => {
      const { chat, agent } = await stack.visitorChat();
      expect((await rejection(stack.receive(agent, chat._id, 'spoof'))).code).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('internal notes', () => {
    it('never reach the visitor: not in messages, events, unread counts or event numbers', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      await stack.receive(visitor, chat._id, 'question');
      const note = await stack.send(agent, chat._id, 'internal: check the order', true);
      const reply = await stack.send(agent, chat._id, 'answer');
      await unary(
        stack.inbox.updateMessage.bind(stack.inbox),
        { messageId: note._id, text: 'internal: edited' },
        stack.as(agent),
      );
      await unary(stack.inbox.deleteMessage.bind(stack.inbox), { messageId: note._id }, stack.as(agent));
      const messages = await stack.visitorMessages(visitor, chat._id);
      expect(messages.data.map((m) => m._id)).to.deep.equal([reply._id, messages.data[1]?._id]);
      expect(messages.data.some((m) => m._id === note._id)).to.equal(false);
      const events = await stack.visitorEvents(visitor, chat._id);
      expect(events.data.map((e) => [e.seq, e.type])).to.deep.equal([
        [1, 'message.created'],
        [2, 'message.created'],
      ]);
      expect(events.data.map((e) => e.message?._id)).to.not.include(note._id);
      expect((await stack.visitorChatOf(visitor, chat._id)).unreadCount).to.equal(1);
      const noteEvents = await eventually(async () => {
        const seen = stack.eventsOf(chat._id).filter((e) => e.message?.messageId === note._id);
        return seen.length === 3 && seen;
      });
      expect(noteEvents.map((e) => e.message?.visitorSeq)).to.deep.equal([0, 0, 0]);
    });
  });

  describe('visitor event log', () => {
    it('numbers concurrent changes of one chat 1..n without gaps, in the outbox events too', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      const writes = [
        ...Array.from({ length: 10 }, (_, i) => stack.receive(visitor, chat._id, `v${i}`)),
        ...Array.from({ length: 10 }, (_, i) => stack.send(agent, chat._id, `a${i}`)),
        ...Array.from({ length: 5 }, (_, i) => stack.send(agent, chat._id, `note${i}`, true)),
      ];
      await Promise.all(writes);
      const { data, hasNext, lastEventSeq } = await stack.visitorEvents(visitor, chat._id);
      expect(data.map((e) => e.seq)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(hasNext).to.equal(false);
      expect(lastEventSeq).to.equal(20);
      expect(new Set(data.map((e) => e.message?._id)).size).to.equal(20);
      const published = await eventually(async () => {
        const seqs = stack
          .eventsOf(chat._id)
          .filter((e) => e.type === 'message.created' && !e.message?.internal)
          .map((e) => e.message?.visitorSeq ?? 0);
        return seqs.length === 20 && seqs;
      });
      expect([...published].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
      // Each event's number is the one its message got in the log.
      for (const event of stack.eventsOf(chat._id).filter((e) => e.type === 'message.created' && e.message?.visitorSeq))
        expect(data.find((d) => d.seq === event.message?.visitorSeq)?.message?._id).to.equal(event.message?.messageId);
    });

    it('records one chat.closed for concurrent closes of one chat', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      const close = () => unary(stack.inbox.closeChat.bind(stack.inbox), { chatId: chat._id }, stack.as(agent));
      await Promise.all(Array.from({ length: 6 }, close));
      expect((await stack.visitorEvents(visitor, chat._id)).data.map((e) => [e.seq, e.type])).to.deep.equal([
        [1, 'chat.closed'],
      ]);
    });

    it('replays after n exactly the later events, and pages by limit with hasNext', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      await stack.receive(visitor, chat._id, 'one');
      const reply = await stack.send(agent, chat._id, 'two');
      await unary(stack.inbox.closeChat.bind(stack.inbox), { chatId: chat._id }, stack.as(agent));
      await stack.receive(visitor, chat._id, 'three'); // reopens the chat
      await unary(stack.inbox.updateMessage.bind(stack.inbox), { messageId: reply._id, text: 'two!' }, stack.as(agent));
      const all = await stack.visitorEvents(visitor, chat._id);
      expect(all.data.map((e) => e.type)).to.deep.equal([
        'message.created',
        'message.created',
        'chat.closed',
        'message.created',
        'chat.reopened',
        'message.updated',
      ]);
      expect(all.data[2]?.chatStatus).to.equal(ChatStatus.CLOSED);
      expect(all.data[4]?.chatStatus).to.equal(ChatStatus.OPEN);
      // Messages as they are now: the created event of the edited reply shows the edit.
      expect(all.data[1]?.message?.text).to.equal('two!');
      const after3 = await stack.visitorEvents(visitor, chat._id, 3);
      expect(after3.data.map((e) => e.seq)).to.deep.equal([4, 5, 6]);
      const firstTwo = await stack.visitorEvents(visitor, chat._id, 0, 2);
      expect(firstTwo.data.map((e) => e.seq)).to.deep.equal([1, 2]);
      expect(firstTwo.hasNext).to.equal(true);
      expect((await stack.visitorEvents(visitor, chat._id, 6)).data).to.deep.equal([]);
      expect((await rejection(stack.visitorEvents(visitor, chat._id, 0, 201))).code).to.equal(status.INVALID_ARGUMENT);
      await eventually(async () => stack.eventsOf(chat._id).some((e) => e.type === 'chat.reopened'));
      expect(
        stack
          .eventsOf(chat._id)
          .filter((e) => e.type === 'chat.closed' || e.type === 'chat.reopened')
          .map((e) => e.chat?.visitorSeq),
      ).to.deep.equal([3, 5]);
    });
  });

  describe('VisitorService.ListVisitorMessages', () => {
    it('pages newest first and shows agents by type, API keys without a name', async () => {
      const { chat, visitor, agent } = await stack.visitorChat();
      await stack.receive(visitor, chat._id, 'first');
      await stack.send(agent, chat._id, 'second');
      await stack.receive(visitor, chat._id, 'third');
      const page1 = await stack.visitorMessages(visitor, chat._id, { limit: 2 });
      expect(page1.data.map((m) => m.text)).to.deep.equal(['third', 'second']);
      expect(page1.hasNext).to.equal(true);
      const page2 = await stack.visitorMessages(visitor, chat._id, { cursor: page1.nextCursor ?? '', limit: 2 });
      expect(page2.data.map((m) => m.text)).to.deep.equal(['first']);
      const second = page1.data[1];
      expect(second?.author).to.deep.equal({ type: AuthorType.API_KEY, displayName: '', avatarUrl: '' });
      expect(second?.deliveryStatus).to.equal(DeliveryStatus.QUEUED);
      expect(page1.data[0]?.author?.type).to.equal(AuthorType.CONTACT);
    });

    it('shows a member by the name identity knows', async () => {
      const org = await stack.identity.newOrg();
      const { chat, visitor } = await stack.visitorChat(org.id);
      const owner = { ...principalFor(PrincipalKind.MEMBER_SESSION, org.id, AGENT_SCOPES), memberId: org.ownerId };
      await stack.send(owner, chat._id, 'hello from a member');
      const [message] = (await stack.visitorMessages(visitor, chat._id)).data;
      expect(message?.author).to.deep.equal({ type: AuthorType.MEMBER, displayName: 'Olive Owner', avatarUrl: '' });
    });
  });

  it('keeps SYSTEM callers working as before (channels)', async () => {
    const { orgId, chat } = await stack.visitorChat();
    const message = await stack.receive(systemPrincipal(orgId), chat._id, 'from a platform');
    expect(message.authorType).to.equal(AuthorType.CONTACT);
  });
});
