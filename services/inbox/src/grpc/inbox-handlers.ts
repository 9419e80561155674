import { implement, type Logger, type Page, type PrincipalCodec, type ServiceHandlers } from '@svc/kit';
import { InboxServiceService, type PaginateMessagesInput } from '@svc/proto/inbox/v1';
import type { Chats } from '../domain/chats';
import type { Messages } from '../domain/messages';
import { chatView, messageView } from '../domain/views';

const DEFAULT_PAGE_SIZE = 30;

function pageRequest(input: PaginateMessagesInput | undefined) {
  return { cursor: input?.cursor || undefined, isBefore: input?.isBefore, limit: input?.limit || DEFAULT_PAGE_SIZE };
}

function pageOf<R, V>(page: Page<R>, view: (row: R) => V) {
  return { ...page, data: page.data.map(view) };
}

export function inboxService(
  domain: { chats: Chats; messages: Messages },
  deps: { codec: PrincipalCodec; logger: Logger },
) {
  const handlers: ServiceHandlers<typeof InboxServiceService> = {
    sendMessage: async (request, { principal }) =>
      messageView(
        await domain.messages.send(principal, request.chatId, request.input ?? { text: '', internal: false }),
      ),
    getMessages: async (request, { principal }) =>
      pageOf(await domain.messages.list(principal, request.chatId, pageRequest(request.input)), messageView),
    getChat: async (request, { principal }) => chatView(await domain.chats.get(principal, request.chatId)),
    searchChats: async (request, { principal }) =>
      pageOf(
        await domain.chats.search(principal, {
          query: request.query,
          status: request.status,
          page: pageRequest(request.input),
        }),
        chatView,
      ),
    closeChat: async (request, { principal }) => chatView(await domain.chats.close(principal, request.chatId)),
    reopenChat: async (request, { principal }) => chatView(await domain.chats.reopen(principal, request.chatId)),
    openChat: async (request, { principal }) =>
      chatView(await domain.chats.open(principal, request.channelId, request.contact ?? { _id: '' })),
    receiveMessage: async (request, { principal }) =>
      messageView(await domain.messages.receive(principal, request.chatId, request.text)),
  };
  return implement('inbox', InboxServiceService, handlers, deps);
}
