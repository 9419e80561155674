import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { eventually, newId, rejection, systemPrincipal, unary, type Principal } from '@svc/kit';
import { VisitorStack } from './visitor-stack';

/** SendMessage's idempotency key (docs/decisions/0083): flows' retried steps post their message once. */
describe('inbox: SendMessage with an idempotency key', () => {
  const stack = new VisitorStack();
  before(() => stack.start());
  after(() => stack.stop());

  const send = (principal: Principal, chatId: string, text: string, idempotencyKey?: string, internal = false) =>
    unary(
      stack.inbox.sendMessage.bind(stack.inbox),
      { chatId, input: { text, internal }, idempotencyKey },
      stack.as(principal),
    );

  /** The message.created events of the chat, once the event of a later message (`last`) has arrived. */
  async function createdEvents(chatId: string, last: string): Promise<string[]> {
    const created = () =>
      stack
        .eventsOf(chatId)
        .filter((e) => e.type === 'message.created')
        .map((e) => e.message?.messageId ?? '');
    await eventually(async () => created().includes(last));
    return created();
  }

  it('answers the first message for a repeat with the same key, sequential and concurrent, with one event each', async () => {
    const { orgId, chat, visitor } = await stack.visitorChat();
    const system = systemPrincipal(orgId);
    const first = await send(system, chat._id, 'once', 'flow-run:r1:0');
    const again = await send(system, chat._id, 'once', 'flow-run:r1:0');
    expect(again._id).to.equal(first._id);
    const racing = await Promise.all(
      Array.from({ length: 8 }, () => send(system, chat._id, 'racing', 'flow-run:r1:1', true)),
    );
    expect(new Set(racing.map((m) => m._id)).size).to.equal(1);
    const other = await send(system, chat._id, 'once', 'flow-run:r2:0');
    expect(other._id).to.not.equal(first._id);
    const messages = await unary(
      stack.inbox.getMessages.bind(stack.inbox),
      { chatId: chat._id, input: { limit: 30 } },
      stack.as(system),
    );
    expect(messages.data.map((m) => m.text)).to.deep.equal(['once', 'racing', 'once']);
    const events = await createdEvents(chat._id, other._id);
    expect(events).to.deep.equal([first._id, racing[0]?._id, other._id]);
    expect((await stack.visitorEvents(visitor, chat._id)).data.map((e) => e.seq)).to.deep.equal([1, 2]);
  });

  it('keeps keys apart from channel message ids and from other chats', async () => {
    const { orgId, chat, visitor } = await stack.visitorChat();
    const system = systemPrincipal(orgId);
    const keyed = await send(system, chat._id, 'from a flow', 'k');
    const inbound = await stack.receive(visitor, chat._id, 'from the visitor', { externalId: 'k' });
    expect(inbound._id).to.not.equal(keyed._id);
    const spoof = await rejection(stack.receive(visitor, chat._id, 'spoof', { externalId: 'idem:k' }));
    expect([spoof.code, spoof.details]).to.deep.equal([
      status.INVALID_ARGUMENT,
      'externalId must not start with "idem:"',
    ]);
    const elsewhere = await stack.visitorChat(orgId);
    expect((await send(system, elsewhere.chat._id, 'from a flow', 'k'))._id).to.not.equal(keyed._id);
  });

  it('refuses a key from any caller but a service, and one outside 1-195 characters', async () => {
    const { orgId, chat, agent } = await stack.visitorChat();
    expect((await rejection(send(agent, chat._id, 'hi', 'k'))).code).to.equal(status.PERMISSION_DENIED);
    for (const key of ['', 'x'.repeat(196)])
      expect((await rejection(send(systemPrincipal(orgId), chat._id, 'hi', key))).code).to.equal(
        status.INVALID_ARGUMENT,
      );
    expect((await send(agent, chat._id, `no key ${newId()}`)).text).to.match(/^no key/);
  });
});
