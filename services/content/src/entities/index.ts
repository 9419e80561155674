import { OutboxEvent } from '@svc/kit';
import { HelpArticleRow, HelpArticleTagRow, HelpArticleTermRow, HelpArticleTranslationRow } from './help-article';
import { HelpFolderRow } from './help-folder';
import { LeaseRow } from './lease';
import { NewsPostCategoryRow, NewsPostRow, NewsPostTagRow, NewsPostTranslationRow } from './news-post';
import { HelpTagRow, NewsCategoryRow, NewsTagRow } from './taxonomy';

export {
  HelpArticleRow,
  HelpArticleTagRow,
  HelpArticleTermRow,
  HelpArticleTranslationRow,
  HelpFolderRow,
  HelpTagRow,
  LeaseRow,
  NewsCategoryRow,
  NewsPostCategoryRow,
  NewsPostRow,
  NewsPostTagRow,
  NewsPostTranslationRow,
  NewsTagRow,
};
export const entities = [
  HelpFolderRow,
  HelpArticleRow,
  HelpArticleTranslationRow,
  HelpArticleTagRow,
  HelpArticleTermRow,
  HelpTagRow,
  NewsPostRow,
  NewsPostTranslationRow,
  NewsPostCategoryRow,
  NewsPostTagRow,
  NewsCategoryRow,
  NewsTagRow,
  LeaseRow,
  OutboxEvent,
];
