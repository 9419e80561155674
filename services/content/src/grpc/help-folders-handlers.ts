import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { HelpFolderServiceService } from '@svc/proto/content/v1/help_folders';
import type { HelpFolderReads, HelpFolderWrites } from '../domain/help-folders';

export const HELP_FOLDER_GRPC_SERVICE = 'svc.content.v1.HelpFolderService';

export function helpFolderService(domain: { reads: HelpFolderReads; writes: HelpFolderWrites }, deps: ImplementDeps) {
  const { reads, writes } = domain;
  const handlers: ServiceHandlers<typeof HelpFolderServiceService> = {
    listHelpFolders: (request, { principal }) => reads.list(principal, request),
    getHelpFolder: (request, { principal }) => reads.get(principal, request.id),
    getHelpFolderTree: (_request, { principal }) => reads.wholeTree(principal),
    getHelpFolderCounts: async (request, { principal }) => {
      const [counts] = await reads.counts(principal, [request.id], request.locale, 'id');
      if (!counts) throw new Error('a counted folder has no counts');
      return counts;
    },
    getHelpFolderCountsBatch: async (request, { principal }) => ({
      data: await reads.counts(principal, request.ids, request.locale, 'ids'),
    }),
    createHelpFolder: (request, { principal }) => writes.create(principal, request),
    updateHelpFolder: (request, { principal }) => writes.update(principal, request),
    moveHelpFolder: (request, { principal }) => writes.move(principal, request),
    deleteHelpFolder: (request, { principal }) => writes.delete(principal, request),
  };
  return implement('content', HelpFolderServiceService, handlers, deps);
}
