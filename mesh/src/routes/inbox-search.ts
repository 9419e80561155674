import type { Route } from './route';

export const inboxSearchRoutes: Record<string, Route> = {
  searchConversations: { service: 'inboxSearch', method: 'SearchConversations' },
  apiSearchMessages: { service: 'inboxSearch', method: 'SearchMessages' },
  apiSearchChatMessages: { service: 'inboxSearch', method: 'SearchChatMessages' },
};
