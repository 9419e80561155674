import { expect } from 'chai';
import { addPending, confirmSent, upsertMessages } from '../src/message-store.js';
import type { ChatMessage, VisitorMessage } from '../src/index.js';

function message(
  id: string,
  createdAt: string,
  text = id,
  direction: 'INBOUND' | 'OUTBOUND' = 'OUTBOUND',
): VisitorMessage {
  return {
    _id: id,
    chatId: 'c1',
    direction,
    author: { type: direction === 'OUTBOUND' ? 'MEMBER' : 'CONTACT' },
    type: 'TEXT',
    text,
    media: [],
    buttons: [],
    deliveryStatus: 'SENT',
    createdAt,
    deleted: false,
  };
}

function pending(key: string, text: string): ChatMessage {
  return {
    ...message('', '2030-01-01T00:00:00.000Z', text, 'INBOUND'),
    key,
    clientMessageId: key,
    sendState: 'pending',
  };
}

const ids = (list: readonly ChatMessage[]) => list.map((held) => held._id || held.key);

describe('message store', () => {
  const a = message('a1', '2026-11-23T10:00:00.000Z');
  const b = message('b2', '2026-11-23T10:01:00.000Z');
  const c = message('c3', '2026-11-23T10:02:00.000Z');

  it('keeps messages in chronological order whatever order they arrive in', () => {
    expect(ids(upsertMessages([], [c, a, b]))).to.deep.equal(['a1', 'b2', 'c3']);
    // A page of older messages, newest first as the API answers, lands before what is held.
    expect(ids(upsertMessages(upsertMessages([], [c]), [b, a]))).to.deep.equal(['a1', 'b2', 'c3']);
  });

  it('fills in the fields protobuf JSON leaves out (empty text, media, buttons; deleted false)', () => {
    const sparse = {
      _id: 'd4',
      chatId: 'c1',
      direction: 'OUTBOUND',
      author: { type: 'MEMBER' },
      type: 'TEXT',
      deliveryStatus: 'SENT',
      createdAt: c.createdAt,
    } as unknown as VisitorMessage;
    expect(upsertMessages([], [sparse])[0])
      .to.include({ text: '', deleted: false })
      .and.to.deep.include({
        media: [],
        buttons: [],
      });
  });

  it('orders messages of the same instant by _id', () => {
    const same = message('a0', b.createdAt);
    expect(ids(upsertMessages([], [b, same]))).to.deep.equal(['a0', 'b2']);
  });

  it('replaces a replayed or updated message by _id instead of adding it again', () => {
    const held = upsertMessages([], [a, b, c]);
    const edited = { ...b, text: 'edited', deliveryStatus: 'READ' as const };
    const next = upsertMessages(held, [edited, a, c]);
    expect(ids(next)).to.deep.equal(['a1', 'b2', 'c3']);
    expect(next[1]?.text).to.equal('edited');
    expect(next[1]?.deliveryStatus).to.equal('READ');
  });

  it('keeps pending sends after the server messages, and a new server message before them', () => {
    const list = addPending(upsertMessages([], [a]), pending('cm1', 'hello'));
    expect(ids(upsertMessages(list, [b]))).to.deep.equal(['a1', 'b2', 'cm1']);
  });

  it('confirms a pending send in its place with a stable key', () => {
    const list = addPending(upsertMessages([], [a, c]), pending('cm1', 'hello'));
    const next = confirmSent(list, 'cm1', { _id: 'b2', createdAt: b.createdAt });
    expect(ids(next)).to.deep.equal(['a1', 'b2', 'c3']);
    expect(next[1]).to.include({ key: 'cm1', sendState: 'sent', text: 'hello' });
  });

  it('merges a confirmed send with the copy the stream brought first (no duplicate)', () => {
    const streamed = { ...message('b2', b.createdAt, 'hello', 'INBOUND') };
    const list = upsertMessages(addPending(upsertMessages([], [a]), pending('cm1', 'hello')), [streamed]);
    expect(ids(list)).to.deep.equal(['a1', 'b2', 'cm1']);
    const next = confirmSent(list, 'cm1', { _id: 'b2', createdAt: b.createdAt });
    expect(ids(next)).to.deep.equal(['a1', 'b2']);
    expect(next[1]).to.include({ key: 'cm1', clientMessageId: 'cm1' });
    // Later stream events about it keep the key the UI lists it by.
    expect(upsertMessages(next, [{ ...streamed, text: 'edited' }])[1]).to.include({ key: 'cm1', text: 'edited' });
  });
});
