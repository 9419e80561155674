import type { ChatMessage } from './state.js';
import type { VisitorMessage } from './types.js';

/**
 * The chat's messages as the UI lists them, kept as immutable arrays (each change is a new array, so a snapshot
 * never changes under the UI): messages the server has, by `_id`, in `(createdAt, _id)` order (the server's own
 * order, decision 0001), then this page's pending and failed sends in the order they were written. A message that
 * arrives again (a replayed `message.created`, a page that overlaps) replaces the one held, never duplicates it.
 */
export function upsertMessages(list: readonly ChatMessage[], incoming: readonly VisitorMessage[]): ChatMessage[] {
  let next = list.slice();
  for (const message of incoming) next = upsertOne(next, message);
  return next;
}

/**
 * widget-api writes messages with protobuf's JSON mapping, which leaves out default values: an empty `text`, `media`
 * or `buttons` and `deleted: false` are absent. The UI gets them filled in.
 */
export function completeMessage(message: VisitorMessage): VisitorMessage {
  return {
    ...message,
    text: message.text ?? '',
    media: message.media ?? [],
    buttons: message.buttons ?? [],
    deleted: message.deleted === true,
  };
}

function upsertOne(list: ChatMessage[], received: VisitorMessage): ChatMessage[] {
  const message = completeMessage(received);
  const at = list.findIndex((held) => held._id === message._id && held.sendState === 'sent');
  if (at !== -1) {
    const held = list[at]!;
    list[at] = { ...message, key: held.key, clientMessageId: held.clientMessageId, sendState: 'sent' };
    return list;
  }
  insertSent(list, { ...message, key: message._id, sendState: 'sent' });
  return list;
}

function insertSent(list: ChatMessage[], message: ChatMessage): void {
  let at = list.length;
  // Walk back over the unsent tail and every later message: arrivals are usually the newest, so this is short.
  while (at > 0) {
    const before = list[at - 1]!;
    if (before.sendState === 'sent' && !isAfter(before, message)) break;
    at--;
  }
  list.splice(at, 0, message);
}

function isAfter(a: VisitorMessage, b: VisitorMessage): boolean {
  const at = Date.parse(a.createdAt) - Date.parse(b.createdAt);
  return at !== 0 ? at > 0 : a._id > b._id;
}

/** Add this page's own message, not yet confirmed, at the end. */
export function addPending(list: readonly ChatMessage[], message: ChatMessage): ChatMessage[] {
  return [...list.filter((held) => held.key !== message.key), message];
}

/** Change the unsent message `key` (pending ↔ failed). */
export function updateUnsent(
  list: readonly ChatMessage[],
  key: string,
  change: Partial<Pick<ChatMessage, 'sendState' | 'error' | 'media'>>,
): ChatMessage[] {
  return list.map((held) => (held.key === key && held.sendState !== 'sent' ? { ...held, ...change } : held));
}

/**
 * The server took the unsent message `key` as `_id` at `createdAt`: it becomes `sent` in its place in the order. When
 * the stream already brought that message, the two are one: the stream's copy keeps the stable key.
 */
export function confirmSent(
  list: readonly ChatMessage[],
  key: string,
  confirmed: { _id: string; createdAt: string },
): ChatMessage[] {
  const unsent = list.find((held) => held.key === key && held.sendState !== 'sent');
  const next = list.filter((held) => !(held.key === key && held.sendState !== 'sent'));
  if (!unsent) return next;
  const known = next.findIndex((held) => held._id === confirmed._id && held.sendState === 'sent');
  if (known !== -1) {
    next[known] = { ...next[known]!, key, clientMessageId: unsent.clientMessageId };
    return next;
  }
  const sent: ChatMessage = { ...unsent, ...confirmed, sendState: 'sent', error: undefined };
  insertSent(next, sent);
  return next;
}
