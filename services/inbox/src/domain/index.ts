import type { DataSource } from 'typeorm';
import type { Logger, OutboxRelay } from '@svc/kit';
import type { BlobStore } from '../storage/blob-store';
import { BlobDeletions } from './blob-deletions';
import { ChatMoves } from './chat-moves';
import { Chats } from './chats';
import { Collections } from './collections';
import { MessageDelivery } from './message-delivery';
import { DeliveryStatuses } from './delivery-status';
import { Conversations } from './conversations';
import { Deletion } from './deletion';
import { ConversationErasure, type ErasureRequests } from './erasure/conversation-erasure';
import { InboxErasure } from './erasure/inbox-erasure';
import { InboxCountsReader } from './inbox-counts';
import { Labels } from './labels';
import { MediaLibrary, type MediaLimits } from './media';
import type { MemberDirectory } from './members';
import { MediaAttachments } from './media-attachments';
import type { MediaLinks } from './media-links';
import { MessageReader } from './message-details';
import { MessageChanges } from './message-changes';
import { Messages } from './messages';
import { Reading } from './reading';
import { Search } from './search';
import { ChatTyping } from './typing';
import { VisitorSide } from './visitor-side';
import { VisitorMessageViews } from './visitor-views';

/** Every use-case object of the inbox, wired to one data source and outbox relay. */
export interface InboxDomain {
  chats: Chats;
  conversations: Conversations;
  messages: Messages;
  messageChanges: MessageChanges;
  reading: Reading;
  labels: Labels;
  collections: Collections;
  search: Search;
  counts: InboxCountsReader;
  deletion: Deletion;
  media: MediaLibrary;
  deliveryStatuses: DeliveryStatuses;
  messageDelivery: MessageDelivery;
  chatMoves: ChatMoves;
  typing: ChatTyping;
  visitor: VisitorSide;
  /** The inbox's part of erasing a contact (the erasure saga, docs/erasure.md). */
  erasure: InboxErasure;
  /** Deletes the bytes of removed media durably (swept at start and periodically). */
  blobDeletions: BlobDeletions;
}

export type { MemberDirectory } from './members';
export type { ErasureRequests } from './erasure/conversation-erasure';

/** What the media library needs from the deployable: its blob storage, link signer and limits. */
export interface MediaDeps {
  blobs: BlobStore;
  links: MediaLinks;
  limits: MediaLimits;
  logger: Logger;
}

export function inboxDomain(
  dataSource: DataSource,
  relay: () => OutboxRelay,
  mediaDeps: MediaDeps,
  members: MemberDirectory,
  erasureRequests: ErasureRequests,
): InboxDomain {
  const attachments = new MediaAttachments(mediaDeps.links);
  const reader = new MessageReader(attachments);
  const blobDeletions = new BlobDeletions(dataSource, mediaDeps.blobs, mediaDeps.logger);
  const media = new MediaLibrary(
    dataSource,
    relay,
    mediaDeps.blobs,
    mediaDeps.links,
    mediaDeps.limits,
    mediaDeps.logger,
    blobDeletions,
  );
  const erasure = new InboxErasure(dataSource, media);
  return {
    chats: new Chats(dataSource, relay, members),
    conversations: new Conversations(dataSource, relay, members),
    messages: new Messages(dataSource, relay, reader, attachments),
    messageChanges: new MessageChanges(dataSource, relay, reader, attachments),
    reading: new Reading(dataSource, relay),
    labels: new Labels(dataSource, relay),
    collections: new Collections(dataSource, relay),
    search: new Search(dataSource, reader),
    counts: new InboxCountsReader(dataSource),
    deletion: new Deletion(
      dataSource,
      relay,
      media,
      new ConversationErasure(dataSource, relay, erasure, erasureRequests),
    ),
    media,
    deliveryStatuses: new DeliveryStatuses(dataSource, relay),
    messageDelivery: new MessageDelivery(dataSource, relay, reader),
    chatMoves: new ChatMoves(dataSource, relay),
    typing: new ChatTyping(dataSource, relay, members),
    visitor: new VisitorSide(dataSource, relay, new VisitorMessageViews(attachments, members)),
    erasure,
    blobDeletions,
  };
}
