import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { CollectionServiceService } from '@svc/proto/inbox/v1/collections';
import type { Collections } from '../domain/collections';
import { pageRequest } from './page-request';

export function collectionService(collections: Collections, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof CollectionServiceService> = {
    listCollections: (r, { principal }) => collections.list(principal, r.parentId),
    getCollection: (r, { principal }) => collections.get(principal, r.collectionId),
    getCollectionChats: (r, { principal }) => collections.chats(principal, r.collectionId, pageRequest(r.input)),
    getCollectionChatCount: (r, { principal }) => collections.chatCount(principal, r.collectionId),
    getCollectionConversations: (r, { principal }) =>
      collections.conversations(principal, r.collectionId, pageRequest(r.input)),
    getChatCollectionCounts: (_r, { principal }) => collections.counts(principal),
    createCollection: (r, { principal }) => collections.create(principal, r.name, r.parentId),
    updateCollection: (r, { principal }) => collections.update(principal, r.collectionId, r.name),
    moveCollection: (r, { principal }) => collections.move(principal, r.collectionId, r.parentId),
    deleteCollection: (r, { principal }) => collections.remove(principal, r.collectionId),
  };
  return implement('inbox', CollectionServiceService, handlers, deps);
}
