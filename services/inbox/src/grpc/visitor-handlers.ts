import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { VisitorServiceService } from '@svc/proto/inbox/v1/visitor';
import { VISITOR_METHODS } from '../domain/visitor-access';
import type { VisitorSide } from '../domain/visitor-side';
import { pageRequest } from './page-request';

/** VisitorService: widget-api with the VISITOR principal of a session (only it: every method requires VISITOR). */
export function visitorService(visitor: VisitorSide, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof VisitorServiceService> = {
    getVisitorChat: (r, { principal }) => visitor.chat(principal, r.chatId),
    listVisitorMessages: (r, { principal }) => visitor.messages(principal, r.chatId, pageRequest(r.pagination)),
    listVisitorEvents: (r, { principal }) => visitor.events(principal, r.chatId, r.afterSeq, r.limit),
    markVisitorRead: (r, { principal }) => visitor.markRead(principal, r.chatId, r.messageId),
    setVisitorTyping: (r, { principal }) => visitor.typing(principal, r.chatId, r.typing),
  };
  return implement('inbox', VisitorServiceService, handlers, { ...deps, visitor: VISITOR_METHODS.VisitorService });
}
