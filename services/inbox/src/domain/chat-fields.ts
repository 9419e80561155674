import { InvalidArgument, isId } from '@svc/kit';
import { ChatField, ChatPriority, ChatStatus } from '@svc/proto/inbox/v1';
import { MAX_LABELS_PER_CHAT } from './chat-labels';

/** A validated `updateChatField` change: the field and its typed value (null clears an optional field). */
export type ChatFieldChange =
  | { field: ChatField.STATUS; value: ChatStatus.OPEN | ChatStatus.CLOSED }
  | { field: ChatField.PRIORITY; value: ChatPriority }
  | { field: ChatField.CATEGORY; value: string | null }
  | { field: ChatField.SUBJECT; value: string | null }
  | { field: ChatField.COLLECTION; value: string | null }
  | { field: ChatField.LABELS; value: string[] };

const PRIORITIES = [ChatPriority.LOW, ChatPriority.NORMAL, ChatPriority.HIGH, ChatPriority.URGENT] as string[];

function bad(message: string): never {
  throw new InvalidArgument(message, { field: 'input.value' });
}

function optionalText(value: unknown, max: number, name: string): string | null {
  if (value === null) return null;
  if (typeof value !== 'string') bad(`${name} must be a string or null`);
  const text = value.trim();
  if (text.length > max) bad(`${name} must be at most ${max} characters`);
  return text || null;
}

/** The thread's whole new set of labels: distinct label ids (a repeated id counts once), at most 20. */
function labelIds(value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((id): id is string => typeof id === 'string'))
    bad('labels must be an array of label ids');
  const ids = [...new Set(value)];
  if (!ids.every((id) => isId(id))) bad('labels must be 24-character hex label ids');
  if (ids.length > MAX_LABELS_PER_CHAT) bad(`a thread carries at most ${MAX_LABELS_PER_CHAT} labels`);
  return ids;
}

/** Parses and type-checks the JSON value sent for a chat field. */
export function parseChatFieldChange(field: ChatField, valueJson: string): ChatFieldChange {
  let value: unknown;
  try {
    value = valueJson === '' ? null : JSON.parse(valueJson);
  } catch {
    bad('value must be JSON');
  }
  switch (field) {
    case ChatField.STATUS:
      if (value !== ChatStatus.OPEN && value !== ChatStatus.CLOSED) bad('status must be "OPEN" or "CLOSED"');
      return { field, value };
    case ChatField.PRIORITY:
      if (typeof value !== 'string' || !PRIORITIES.includes(value))
        bad(`priority must be one of ${PRIORITIES.join(', ')}`);
      return { field, value: value as ChatPriority };
    case ChatField.CATEGORY:
      return { field, value: optionalText(value, 100, 'category') };
    case ChatField.SUBJECT:
      return { field, value: optionalText(value, 200, 'subject') };
    case ChatField.COLLECTION:
      if (value !== null && typeof value !== 'string') bad('collection must be a collection id or null');
      return { field, value };
    case ChatField.LABELS:
      return { field, value: labelIds(value) };
    default:
      throw new InvalidArgument('field must be one of STATUS, PRIORITY, CATEGORY, SUBJECT, COLLECTION, LABELS', {
        field: 'input.field',
      });
  }
}
