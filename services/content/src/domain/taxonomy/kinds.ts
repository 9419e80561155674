import type { EntityTarget } from 'typeorm';
import {
  HelpArticleTagRow,
  HelpTagRow,
  NewsCategoryRow,
  NewsPostCategoryRow,
  NewsPostTagRow,
  NewsTagRow,
} from '../../entities';

/** The three kinds of term (each is also the object name of its events). */
export type TaxonomyKind = 'help_tag' | 'news_category' | 'news_tag';
export const TAXONOMY_KINDS: readonly TaxonomyKind[] = ['help_tag', 'news_category', 'news_tag'];

export type TaxonomyTermRow = HelpTagRow | NewsCategoryRow | NewsTagRow;

/** Where one kind lives: its table, how errors name it, and the link table whose rows point at its terms. */
export interface TaxonomyKindSpec {
  kind: TaxonomyKind;
  row: EntityTarget<TaxonomyTermRow>;
  /** How messages name one term ("help tag"). */
  label: string;
  /** The link rows (article or post → term) removed with a term. */
  link: { row: EntityTarget<object>; termColumn: string };
}

export const TAXONOMY: Record<TaxonomyKind, TaxonomyKindSpec> = {
  help_tag: {
    kind: 'help_tag',
    row: HelpTagRow,
    label: 'help tag',
    link: { row: HelpArticleTagRow, termColumn: 'tagId' },
  },
  news_category: {
    kind: 'news_category',
    row: NewsCategoryRow,
    label: 'news category',
    link: { row: NewsPostCategoryRow, termColumn: 'categoryId' },
  },
  news_tag: {
    kind: 'news_tag',
    row: NewsTagRow,
    label: 'news tag',
    link: { row: NewsPostTagRow, termColumn: 'tagId' },
  },
};
