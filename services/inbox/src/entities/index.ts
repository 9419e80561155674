import { OutboxEvent } from '@svc/kit';
import { ChatRow } from './chat';
import { CollectionRow } from './collection';
import { ConversationRow } from './conversation';
import { LabelRow } from './label';
import { MessageRow, type MessageContent } from './message';
import { MessageEditRow } from './message-edit';
import { MessageLabelRow } from './message-label';
import { MessageReactionRow } from './message-reaction';
import { ReadStateRow } from './read-state';

export {
  ChatRow,
  CollectionRow,
  ConversationRow,
  LabelRow,
  MessageEditRow,
  MessageLabelRow,
  MessageReactionRow,
  MessageRow,
  ReadStateRow,
  type MessageContent,
};
export const entities = [
  ChatRow,
  CollectionRow,
  ConversationRow,
  LabelRow,
  MessageRow,
  MessageEditRow,
  MessageLabelRow,
  MessageReactionRow,
  ReadStateRow,
  OutboxEvent,
];
