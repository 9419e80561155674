import type { Route } from './route';

type Json = Record<string, unknown>;

/** A page of the content service (`data`, `pageInfo`) as the public page type (`data`, `totalCount`, `hasMore`). */
export function contentPage(result: Json): Json {
  const info = (result.pageInfo ?? {}) as Json;
  return { data: result.data ?? [], totalCount: info.totalCount ?? 0, hasMore: info.hasMore ?? false };
}

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
    request: ({ limit, offset, ...filters }) => ({ page: { limit, offset }, ...filters }),
    response: (result) => {
      const page = contentPage(result);
      return { ...page, data: (page.data as Json[]).map(post) };
    },
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
