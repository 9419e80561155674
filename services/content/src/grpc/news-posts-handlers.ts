import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { NewsPostServiceService } from '@svc/proto/content/v1/news_posts';
import { pageInfoOf } from '../domain/page';
import type { NewsPosts } from '../domain/news/posts';
import { newsPostView } from '../domain/news/views';

export const NEWS_POST_GRPC_SERVICE = 'svc.content.v1.NewsPostService';

export function newsPostsService(posts: NewsPosts, deps: ImplementDeps) {
  const handlers: ServiceHandlers<typeof NewsPostServiceService> = {
    listNewsPosts: async (request, { principal }) => {
      const listed = await posts.list(principal, request);
      return {
        data: listed.posts.map((post) => newsPostView(post, listed.locale)),
        pageInfo: pageInfoOf(listed.page, listed.totalCount),
      };
    },
    getNewsPost: async (request, { principal }) => newsPostView(await posts.get(principal, request.id), request.locale),
    createNewsPost: async (request, { principal }) => newsPostView(await posts.create(principal, request)),
    updateNewsPost: async (request, { principal }) =>
      newsPostView(await posts.update(principal, request), request.locale),
    createNewsPostTranslation: async (request, { principal }) =>
      newsPostView(await posts.createTranslation(principal, request), request.locale),
    publishNewsPost: async (request, { principal }) => newsPostView(await posts.move(principal, request.id, 'publish')),
    scheduleNewsPost: async (request, { principal }) =>
      newsPostView(await posts.move(principal, request.id, 'schedule', request.at)),
    unpublishNewsPost: async (request, { principal }) =>
      newsPostView(await posts.move(principal, request.id, 'unpublish')),
    archiveNewsPost: async (request, { principal }) => newsPostView(await posts.move(principal, request.id, 'archive')),
    deleteNewsPost: async (request, { principal }) => {
      await posts.delete(principal, request.id);
      return { id: request.id };
    },
  };
  return implement('content', NewsPostServiceService, handlers, deps);
}
