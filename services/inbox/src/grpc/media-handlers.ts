import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { MediaType } from '@svc/proto/inbox/v1';
import { MediaServiceService } from '@svc/proto/inbox/v1/media';
import type { MediaLibrary } from '../domain/media';
import { VISITOR_METHODS } from '../domain/visitor-access';
import { cursorPageRequest, pageRequest } from './page-request';

/** An unset or UNSPECIFIED type filter means every type. */
const typeFilter = (type: MediaType | undefined) =>
  type === undefined || type === MediaType.MEDIA_TYPE_UNSPECIFIED ? undefined : type;

export function mediaService(media: MediaLibrary, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof MediaServiceService> = {
    createMedia: (r, { principal }) => media.create(principal, r.file, r.contactId),
    uploadMultipleMedia: async (r, { principal }) => ({ data: await media.createMany(principal, r.files) }),
    deleteMedia: (r, { principal }) => media.delete(principal, r.mediaId),
    listConversationMedia: (r, { principal }) =>
      media.conversationMedia(principal, r.conversationId, typeFilter(r.type), pageRequest(r.input)),
    listChatMedia: (r, { principal }) => media.chatMedia(principal, r.chatId, typeFilter(r.type), pageRequest(r.input)),
    getConversationMediaCounts: (r, { principal }) => media.conversationCounts(principal, r.conversationId),
    getChatMediaCounts: (r, { principal }) => media.chatCounts(principal, r.chatId),
    listAllMedia: (r, { principal }) => media.all(principal, typeFilter(r.type), cursorPageRequest(r.input)),
  };
  return implement('inbox', MediaServiceService, handlers, { ...deps, visitor: VISITOR_METHODS.MediaService });
}
