import type { DataSource } from 'typeorm';
import type { OutboxRelay } from '@svc/kit';
import { Chats } from './chats';
import { Collections } from './collections';
import { Conversations } from './conversations';
import { Deletion } from './deletion';
import { InboxCountsReader } from './inbox-counts';
import { Labels } from './labels';
import { MessageChanges } from './message-changes';
import { Messages } from './messages';
import { Reading } from './reading';
import { Search } from './search';

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
}

export function inboxDomain(dataSource: DataSource, relay: () => OutboxRelay): InboxDomain {
  return {
    chats: new Chats(dataSource, relay),
    conversations: new Conversations(dataSource, relay),
    messages: new Messages(dataSource, relay),
    messageChanges: new MessageChanges(dataSource, relay),
    reading: new Reading(dataSource, relay),
    labels: new Labels(dataSource, relay),
    collections: new Collections(dataSource, relay),
    search: new Search(dataSource),
    counts: new InboxCountsReader(dataSource),
    deletion: new Deletion(dataSource, relay),
  };
}
