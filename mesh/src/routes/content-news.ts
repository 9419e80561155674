import { contentPage, contentPageRequest } from './content-page';
import type { Route } from './route';

type Json = Record<string, unknown>;

const post = (result: Json): Json => ({
  ...result,
  categoryIds: result.categoryIds ?? [],
  tagIds: result.tagIds ?? [],
  translations: result.translations ?? [],
});

/** A list replaces the post's categories or tags only when given (`has_*`), an empty list removing them all. */
function updateRequest(args: Json): Json {
  const { categoryIds, tagIds, ...input } = args.input as Json;
  const has = (ids: unknown) => ids !== undefined && ids !== null;
  return {
    ...input,
    id: args.id,
    categoryIds: has(categoryIds) ? categoryIds : [],
    hasCategoryIds: has(categoryIds),
    tagIds: has(tagIds) ? tagIds : [],
    hasTagIds: has(tagIds),
  };
}

export const contentNewsRoutes: Record<string, Route> = {
  newsPosts: {
    service: 'contentNews',
    method: 'ListNewsPosts',
    request: contentPageRequest,
    response: (result) => contentPage(result, post),
  },
  newsPost: { service: 'contentNews', method: 'GetNewsPost', response: post },
  createNewsPost: {
    service: 'contentNews',
    method: 'CreateNewsPost',
    request: (a) => ({ ...(a.input as Json) }),
    response: post,
  },
  updateNewsPost: { service: 'contentNews', method: 'UpdateNewsPost', request: updateRequest, response: post },
  createNewsPostTranslation: {
    service: 'contentNews',
    method: 'CreateNewsPostTranslation',
    request: (a) => ({ ...(a.input as Json), id: a.id }),
    response: post,
  },
  publishNewsPost: { service: 'contentNews', method: 'PublishNewsPost', response: post },
  scheduleNewsPost: { service: 'contentNews', method: 'ScheduleNewsPost', response: post },
  unpublishNewsPost: { service: 'contentNews', method: 'UnpublishNewsPost', response: post },
  archiveNewsPost: { service: 'contentNews', method: 'ArchiveNewsPost', response: post },
  deleteNewsPost: { service: 'contentNews', method: 'DeleteNewsPost' },
};
