import type { Route } from './route';

export const inboxRoutes: Record<string, Route> = {
  chat: { service: 'inbox', method: 'GetChat' },
  getMessages: { service: 'inbox', method: 'GetMessages' },
  searchChats: {
    service: 'inbox',
    method: 'SearchChats',
    request: (a) => ({ ...(a.filter as object | undefined), input: a.input }),
  },
  sendMessage: { service: 'inbox', method: 'SendMessage' },
  closeChat: { service: 'inbox', method: 'CloseChat' },
  reopenChat: { service: 'inbox', method: 'ReopenChat' },
};
