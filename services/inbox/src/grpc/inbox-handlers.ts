import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { InboxServiceService } from '@svc/proto/inbox/v1';
import type { InboxDomain } from '../domain';
import { VISITOR_METHODS } from '../domain/visitor-access';
import { pageRequest } from './page-request';

export function inboxService(domain: InboxDomain, deps: ImplementDeps) {
  const { chats, conversations, messages, messageChanges, reading } = domain;
  const handlers: ServiceHandlers<typeof InboxServiceService> = {
    sendMessage: (r, { principal }) =>
      messages.send(
        principal,
        r.chatId,
        r.input ?? { text: '', internal: false },
        r.idempotencyKey,
        r.platformTemplate ?? false,
      ),
    getMessages: (r, { principal, fields }) => messages.list(principal, r.chatId, pageRequest(r.input), fields),
    getChat: (r, { principal }) => chats.get(principal, r.chatId),
    searchChats: (r, { principal }) =>
      chats.search(principal, { query: r.query, status: r.status, filter: r.filter, page: pageRequest(r.input) }),
    closeChat: (r, { principal }) => chats.close(principal, r.chatId),
    reopenChat: (r, { principal }) => chats.reopen(principal, r.chatId),
    updateMessage: (r, { principal }) => messageChanges.update(principal, r.messageId, r.text),
    deleteMessage: (r, { principal }) => messageChanges.delete(principal, r.messageId),
    addMessageReaction: (r, { principal }) => messageChanges.addReaction(principal, r.messageId, r.emoji),
    removeMessageReaction: (r, { principal }) => messageChanges.removeReaction(principal, r.messageId, r.emoji),
    setMessageLabels: (r, { principal }) => messageChanges.setLabels(principal, r.messageId, r.labelIds),
    getConversation: (r, { principal }) => conversations.get(principal, r.conversationId),
    getConversationMessages: (r, { principal, fields }) =>
      messages.listConversation(principal, r.conversationId, pageRequest(r.input), fields),
    getThreadsPage: (r, { principal }) => conversations.threads(principal, r.conversationId, pageRequest(r.input)),
    readMessages: (r, { principal }) => reading.readMessages(principal, r.chatId, r.messageIds),
    readAllMessages: (r, { principal }) => reading.readAll(principal, r.chatId),
    readAllConversation: (r, { principal }) => reading.readAllConversation(principal, r.conversationId),
    assignChatToOperator: (r, { principal }) => chats.assign(principal, r.chatId, r.operatorId),
    unassignChat: (r, { principal }) => chats.unassign(principal, r.chatId),
    assignConversationThreads: (r, { principal }) =>
      conversations.assignThreads(principal, r.conversationId, r.operatorId),
    blockConversation: (r, { principal }) => conversations.block(principal, r.conversationId, r.blocked),
    setConversationAi: (r, { principal }) => conversations.setAi(principal, r.conversationId, r.enabled),
    updateChatField: (r, { principal }) => chats.updateField(principal, r.chatId, r.field, r.valueJson),
    getInboxCounts: (_r, { principal }) => domain.counts.counts(principal),
    deleteChat: (r, { principal }) => domain.deletion.deleteChat(principal, r.chatId),
    deleteConversation: (r, { principal }) =>
      domain.deletion.deleteConversation(principal, r.conversationId, r.removePeople),
    getChatNotes: (r, { principal, fields }) => messages.chatNotes(principal, r.chatId, pageRequest(r.input), fields),
    getConversationNotes: (r, { principal, fields }) =>
      messages.conversationNotes(principal, r.conversationId, pageRequest(r.input), fields),
    sendConversationNote: (r, { principal }) => messages.sendConversationNote(principal, r.conversationId, r.text),
    openChat: (r, { principal }) => chats.open(principal, r.channelId, r.contact ?? { _id: '' }, r.channelType),
    receiveMessage: (r, { principal }) => messages.receive(principal, r),
    addChatLabel: (r, { principal }) => chats.addLabel(principal, r.chatId, r.labelId),
    findChats: async (r, { principal }) => ({ chatIds: await chats.find(principal, r.chatIds, r.channelType) }),
    updateDeliveryStatus: (r, { principal }) => domain.deliveryStatuses.update(principal, r),
    moveChatsToContact: (r, { principal }) =>
      domain.chatMoves.moveToContact(principal, r.channelId, r.fromContactId, r.toContact),
    setChatTyping: (r, { principal }) => domain.typing.set(principal, r.chatId, r.typing),
    getMessageForDelivery: (r, { principal }) => domain.messageDelivery.forDelivery(principal, r.messageId),
    requeueFailedMessage: (r, { principal }) =>
      domain.messageDelivery.requeue(principal, r.messageId, r.platformTemplate, r.dryRun),
  };
  return implement('inbox', InboxServiceService, handlers, { ...deps, visitor: VISITOR_METHODS.InboxService });
}
