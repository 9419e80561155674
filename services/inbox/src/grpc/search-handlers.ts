import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { SearchServiceService } from '@svc/proto/inbox/v1/search';
import type { Search } from '../domain/search';
import { cursorPageRequest, pageRequest } from './page-request';

export function searchService(search: Search, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof SearchServiceService> = {
    searchConversations: (r, { principal }) =>
      search.conversations(principal, r.query, r.filter, cursorPageRequest(r.input)),
    searchMessages: (r, { principal, fields }) =>
      search.messages(principal, r.query, r.filter, pageRequest(r.input), fields),
    searchChatMessages: (r, { principal, fields }) =>
      search.chatMessages(principal, r.chatId, r.query, pageRequest(r.input), fields),
  };
  return implement('inbox', SearchServiceService, handlers, deps);
}
