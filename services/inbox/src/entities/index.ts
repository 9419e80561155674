import { OutboxEvent } from '@svc/kit';
import { ChatRow } from './chat';
import { ChatLabelRow } from './chat-label';
import { CollectionRow } from './collection';
import { ConversationRow } from './conversation';
import { LabelRow } from './label';
import { MediaRow } from './media';
import { MessageRow, type MessageContent } from './message';
import { MessageEditRow } from './message-edit';
import { MessageLabelRow } from './message-label';
import { MessageMediaRow } from './message-media';
import { MessageReactionRow } from './message-reaction';
import { MessageTermRow } from './message-term';
import { ReadStateRow } from './read-state';

export {
  ChatLabelRow,
  ChatRow,
  CollectionRow,
  ConversationRow,
  LabelRow,
  MediaRow,
  MessageEditRow,
  MessageLabelRow,
  MessageMediaRow,
  MessageReactionRow,
  MessageRow,
  MessageTermRow,
  ReadStateRow,
  type MessageContent,
};
export const entities = [
  ChatLabelRow,
  ChatRow,
  CollectionRow,
  ConversationRow,
  LabelRow,
  MediaRow,
  MessageRow,
  MessageEditRow,
  MessageLabelRow,
  MessageMediaRow,
  MessageReactionRow,
  MessageTermRow,
  ReadStateRow,
  OutboxEvent,
];
