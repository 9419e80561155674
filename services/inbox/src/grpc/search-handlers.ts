import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { SearchServiceService } from '@svc/proto/inbox/v1/search';
import type { Search } from '../domain/search';
import { cursorPageRequest, pageRequest } from './page-request';

export function searchService(search: Search, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof SearchServiceService> = {
    searchConversations: (r, { principal }) =>
      search.conversations(principal, r.query, r.filter, cursorPageRequest(r.input)),
    searchMessages: (r, { principal }) => search.messages(principal, r.query, r.filter, pageRequest(r.input)),
    searchChatMessages: (r, { principal }) => search.chatMessages(principal, r.chatId, r.query, pageRequest(r.input)),
  };
  return implement('inbox', SearchServiceService, handlers, deps);
}
