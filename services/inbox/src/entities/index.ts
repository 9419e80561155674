import { OutboxEvent } from '@svc/kit';
import { BlobDeletionRow } from './blob-deletion';
import { CHAT_CHANNEL_TYPES, ChatRow, type ChatChannelType } from './chat';
import { ChatLabelRow } from './chat-label';
import { CollectionRow } from './collection';
import { ConversationRow } from './conversation';
import { ErasedContactRow } from './erased-contact';
import { LabelRow } from './label';
import { MediaRow } from './media';
import { MAX_EXTERNAL_ID_LENGTH, MAX_FAILURE_REASON_LENGTH, MessageRow, type MessageContent } from './message';
import { MessageEditRow } from './message-edit';
import { MessageLabelRow } from './message-label';
import { MessageMediaRow } from './message-media';
import { MessageReactionRow } from './message-reaction';
import { MessageTermRow } from './message-term';
import { ReadStateRow } from './read-state';
import { VisitorEventRow, type VisitorEventType } from './visitor-event';

export {
  CHAT_CHANNEL_TYPES,
  MAX_EXTERNAL_ID_LENGTH,
  MAX_FAILURE_REASON_LENGTH,
  BlobDeletionRow,
  ChatLabelRow,
  ChatRow,
  CollectionRow,
  ConversationRow,
  ErasedContactRow,
  LabelRow,
  MediaRow,
  MessageEditRow,
  MessageLabelRow,
  MessageMediaRow,
  MessageReactionRow,
  MessageRow,
  MessageTermRow,
  ReadStateRow,
  VisitorEventRow,
  type ChatChannelType,
  type MessageContent,
  type VisitorEventType,
};
export const entities = [
  BlobDeletionRow,
  ChatLabelRow,
  ChatRow,
  CollectionRow,
  ConversationRow,
  ErasedContactRow,
  LabelRow,
  MediaRow,
  MessageRow,
  MessageEditRow,
  MessageLabelRow,
  MessageMediaRow,
  MessageReactionRow,
  MessageTermRow,
  ReadStateRow,
  VisitorEventRow,
  OutboxEvent,
];
