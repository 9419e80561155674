import type { Route } from './route';

type Args = Record<string, unknown>;

/** The public CreateCombinedMessageInput is flat; the proto wraps the repeated parts so plain-text callers stay short. */
function messageInput(input: unknown): Args | undefined {
  if (!input || typeof input !== 'object') return undefined;
  const { mediaIds, buttons, ...rest } = input as Args;
  return {
    ...rest,
    ...(Array.isArray(mediaIds) ? { media: { ids: mediaIds } } : {}),
    ...(Array.isArray(buttons) ? { buttons: { items: buttons } } : {}),
  };
}

export const inboxRoutes: Record<string, Route> = {
  chat: { service: 'inbox', method: 'GetChat' },
  getMessages: { service: 'inbox', method: 'GetMessages' },
  searchChats: {
    service: 'inbox',
    method: 'SearchChats',
    request: (a) => {
      // `query` and `status` are SearchChatsRequest's own fields; the rest is the shared SearchFilter.
      const { query, ...filter } = (a.filter ?? {}) as Args;
      return { query, status: filter.status, filter, input: a.input };
    },
  },
  sendMessage: {
    service: 'inbox',
    method: 'SendMessage',
    request: (a) => ({ chatId: a.chatId, input: messageInput(a.input) }),
  },
  closeChat: { service: 'inbox', method: 'CloseChat' },
  reopenChat: { service: 'inbox', method: 'ReopenChat' },
  setChatTyping: { service: 'inbox', method: 'SetChatTyping' },
  updateMessage: { service: 'inbox', method: 'UpdateMessage' },
  deleteMessage: { service: 'inbox', method: 'DeleteMessage' },
  addMessageReaction: { service: 'inbox', method: 'AddMessageReaction' },
  removeMessageReaction: { service: 'inbox', method: 'RemoveMessageReaction' },
  setMessageLabels: { service: 'inbox', method: 'SetMessageLabels' },
  inboxCounts: { service: 'inbox', method: 'GetInboxCounts' },
  apiDeleteChat: { service: 'inbox', method: 'DeleteChat' },
  apiDeleteConversation: { service: 'inbox', method: 'DeleteConversation' },
  conversation: { service: 'inbox', method: 'GetConversation' },
  conversationMessages: { service: 'inbox', method: 'GetConversationMessages' },
  threadsPage: { service: 'inbox', method: 'GetThreadsPage' },
  readMessages: { service: 'inbox', method: 'ReadMessages' },
  readAllMessages: { service: 'inbox', method: 'ReadAllMessages' },
  readAllConversation: { service: 'inbox', method: 'ReadAllConversation' },
  assignChatToOperator: { service: 'inbox', method: 'AssignChatToOperator' },
  unassignChat: { service: 'inbox', method: 'UnassignChat' },
  assignConversationThreads: { service: 'inbox', method: 'AssignConversationThreads' },
  blockConversation: { service: 'inbox', method: 'BlockConversation' },
  setConversationAi: { service: 'inbox', method: 'SetConversationAi' },
  updateChatField: {
    service: 'inbox',
    method: 'UpdateChatField',
    // JSON travels as text: the inbox validates it against the field's type.
    request: (a) => {
      const input = a.input as { field?: string; value?: unknown };
      return { chatId: a.chatId, field: input.field, valueJson: JSON.stringify(input.value ?? null) };
    },
  },
  getChatNotes: { service: 'inbox', method: 'GetChatNotes' },
  conversationNotes: { service: 'inbox', method: 'GetConversationNotes' },
  sendConversationNote: {
    service: 'inbox',
    method: 'SendConversationNote',
    request: (a) => ({ conversationId: a.conversationId, text: (a.input as { text?: string }).text }),
  },
};
