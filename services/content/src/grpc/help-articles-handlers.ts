import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import { HelpArticleServiceService } from '@svc/proto/content/v1/help_articles';
import type { HelpArticleReads } from '../domain/help-articles/read';
import type { HelpArticleWrites } from '../domain/help-articles/write';

export const HELP_ARTICLE_GRPC_SERVICE = 'svc.content.v1.HelpArticleService';

export function helpArticleService(
  domain: { reads: HelpArticleReads; writes: HelpArticleWrites },
  deps: ImplementDeps,
) {
  const { reads, writes } = domain;
  const handlers: ServiceHandlers<typeof HelpArticleServiceService> = {
    listHelpArticles: (request, { principal }) => reads.list(principal, request),
    getHelpArticle: (request, { principal }) => reads.get(principal, request),
    createHelpArticle: (request, { principal }) => writes.create(principal, request),
    updateHelpArticle: (request, { principal }) => writes.update(principal, request),
    createHelpArticleTranslation: (request, { principal }) => writes.createTranslation(principal, request),
    publishHelpArticle: (request, { principal }) => writes.setStatus(principal, request, HelpArticleStatus.PUBLISHED),
    unpublishHelpArticle: (request, { principal }) => writes.setStatus(principal, request, HelpArticleStatus.DRAFT),
    deleteHelpArticle: async (request, { principal }) => ({ id: await writes.delete(principal, request.id) }),
  };
  return implement('content', HelpArticleServiceService, handlers, deps);
}
