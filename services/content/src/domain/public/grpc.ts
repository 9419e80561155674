import { implement, requireOrg, requireSystem, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { ContentPublicServiceService } from '@svc/proto/content/v1/public';
import type { PublicReads } from './public-reads';

export const CONTENT_PUBLIC_GRPC_SERVICE = 'svc.content.v1.ContentPublicService';

/** ContentPublicService: SYSTEM of an org only (widget-api for a public key's org; kit trust policy). */
export function contentPublicService(reads: PublicReads, deps: ImplementDeps) {
  const orgOf = (principal: Parameters<typeof requireOrg>[0]) => {
    requireSystem(principal);
    return requireOrg(principal);
  };
  const handlers: ServiceHandlers<typeof ContentPublicServiceService> = {
    listPublicArticles: (request, { principal }) => reads.articles(orgOf(principal), request),
    getPublicArticle: (request, { principal }) => reads.article(orgOf(principal), request),
    listPublicFolders: (request, { principal }) => reads.folders(orgOf(principal), request),
    listPublicNews: (request, { principal }) => reads.news(orgOf(principal), request),
  };
  return implement('content', ContentPublicServiceService, handlers, deps);
}
