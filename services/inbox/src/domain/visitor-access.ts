import { Forbidden, NotFound, type Principal } from '@svc/kit';
import { PrincipalKind } from '@svc/proto/common/v1';
import { AuthorType } from '@svc/proto/inbox/v1';
import type { ChatRow, MediaRow } from '../entities';

/**
 * The RPCs a VISITOR principal may call (docs/decisions/0081), per gRPC service: the one list `implement()` opens to
 * it (every other method answers PERMISSION_DENIED) and the documentation's table.
 */
export const VISITOR_METHODS = {
  InboxService: ['receiveMessage', 'updateDeliveryStatus'],
  MediaService: ['createMedia'],
  VisitorService: ['getVisitorChat', 'listVisitorMessages', 'listVisitorEvents', 'markVisitorRead', 'setVisitorTyping'],
} as const;

/**
 * The chat as `principal` may reach it: a VISITOR only its own contact's chat on its own channel; any other chat
 * (another contact's, another channel's; another org's or an unknown id never gets here) is NOT_FOUND alike, so a
 * visitor learns nothing about chats that exist.
 */
export function requireReachable(principal: Principal, chat: ChatRow): ChatRow {
  if (
    principal.kind === PrincipalKind.VISITOR &&
    (chat.contactId !== principal.visitorContactId || chat.channelId !== principal.visitorChannelId)
  )
    throw new NotFound('chat not found', { field: 'chatId' });
  return chat;
}

/** The contact's side of a chat: services of the installation (SYSTEM) and the chat's own visitor. */
export function requireContactSide(principal: Principal): void {
  if (principal.kind !== PrincipalKind.SYSTEM && principal.kind !== PrincipalKind.VISITOR)
    throw new Forbidden('only a channel service or the visitor of the chat may call this');
}

/**
 * Which library media an inbound message may carry: what the chat's contact uploaded (a visitor through
 * CreateMedia); a SYSTEM caller (a channel fetching a platform's attachment) may also attach what it uploaded itself.
 * Anything else is answered as not found, like another org's media.
 */
export function uploadedForContact(principal: Principal, chat: ChatRow, media: MediaRow): boolean {
  if (media.uploaderType === AuthorType.CONTACT) return media.uploaderId === chat.contactId;
  return principal.kind === PrincipalKind.SYSTEM && media.uploaderType === AuthorType.SYSTEM;
}
