import type { EntityManager } from 'typeorm';
import { InvalidArgument } from '@svc/kit';
import { requireTermIds, type TaxonomyKind } from '../taxonomy';

/** Most categories, and most tags, one post may have. */
export const MAX_POST_TERMS = 20;

const TERM_KIND: Record<'categoryIds' | 'tagIds' | 'categoryId' | 'tagId', TaxonomyKind> = {
  categoryIds: 'news_category',
  tagIds: 'news_tag',
  categoryId: 'news_category',
  tagId: 'news_tag',
};

/**
 * The distinct ids, each a news category (or tag) of the org, checked by the taxonomy (`requireTermIds`: same
 * database, share-locked until the caller's transaction ends, so a term deleted meanwhile takes the new links with
 * it); otherwise NOT_FOUND naming `field`, the same for another org's id, an unknown one and a malformed one.
 */
export async function orgTermIds(
  manager: EntityManager,
  orgId: string,
  ids: readonly string[],
  field: keyof typeof TERM_KIND,
): Promise<string[]> {
  const wanted = [...new Set(ids)];
  if (wanted.length > MAX_POST_TERMS)
    throw new InvalidArgument(`a news post has at most ${MAX_POST_TERMS} ${field}`, { field });
  return requireTermIds(manager, TERM_KIND[field], orgId, wanted, field);
}
