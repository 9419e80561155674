import type { Route } from './route';

export const inboxCollectionRoutes: Record<string, Route> = {
  chatCollections: {
    service: 'inboxCollections',
    method: 'ListCollections',
    response: (r) => r.data ?? [],
  },
  chatCollection: { service: 'inboxCollections', method: 'GetCollection' },
  collectionChats: { service: 'inboxCollections', method: 'GetCollectionChats' },
  collectionChatCount: { service: 'inboxCollections', method: 'GetCollectionChatCount' },
  collectionConversations: { service: 'inboxCollections', method: 'GetCollectionConversations' },
  chatCollectionCounts: { service: 'inboxCollections', method: 'GetChatCollectionCounts' },
  apiCreateChatCollection: {
    service: 'inboxCollections',
    method: 'CreateCollection',
    request: (a) => a.input as Record<string, unknown>,
  },
  apiUpdateChatCollection: {
    service: 'inboxCollections',
    method: 'UpdateCollection',
    request: (a) => ({ collectionId: a.collectionId, ...(a.input as object) }),
  },
  apiMoveChatCollection: { service: 'inboxCollections', method: 'MoveCollection' },
  apiDeleteChatCollection: { service: 'inboxCollections', method: 'DeleteCollection' },
};
