import { In, type DataSource } from 'typeorm';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import { HelpArticleRow, HelpArticleTranslationRow, HelpFolderRow } from '../../entities';

/** A published translation without its body (lists never need one). */
export type PublishedTranslation = Pick<
  HelpArticleTranslationRow,
  'id' | 'articleId' | 'locale' | 'title' | 'slug' | 'publishedAt' | 'updatedAt'
>;

export interface PublishedArticle {
  article: HelpArticleRow;
  /** Its published translations by locale. */
  translations: Map<string, PublishedTranslation>;
}

/** What visitors may see of an org's help center: its articles with a published translation, and its folders. */
export interface PublishedHelp {
  articles: PublishedArticle[];
  folders: HelpFolderRow[];
}

const TRANSLATION_FIELDS: (keyof PublishedTranslation)[] = [
  'id',
  'articleId',
  'locale',
  'title',
  'slug',
  'publishedAt',
  'updatedAt',
];

/**
 * Reads an org's published help content in three queries (translations without bodies, their articles, the folders):
 * the widget's lists and the public pages choose and order from it in memory, which a help center's size allows.
 */
export async function publishedHelpOf(dataSource: DataSource, orgId: string): Promise<PublishedHelp> {
  const translations = await dataSource.getRepository(HelpArticleTranslationRow).find({
    select: TRANSLATION_FIELDS,
    where: { orgId, status: HelpArticleStatus.PUBLISHED },
    order: { articleId: 'ASC', locale: 'ASC' },
  });
  const articleIds = [...new Set(translations.map((t) => t.articleId))];
  const articles = articleIds.length
    ? await dataSource.getRepository(HelpArticleRow).findBy({ orgId, id: In(articleIds) })
    : [];
  const byId = new Map(articles.map((article) => [article.id, { article, translations: new Map() }]));
  for (const translation of translations)
    byId.get(translation.articleId)?.translations.set(translation.locale, translation);
  const folders = await dataSource.getRepository(HelpFolderRow).find({
    where: { orgId },
    order: { position: 'ASC', id: 'ASC' },
  });
  return { articles: [...byId.values()], folders };
}

/** One article of the org with its published translations; undefined when it has none (or is not the org's). */
export async function publishedArticleOf(
  dataSource: DataSource,
  orgId: string,
  articleId: string,
): Promise<PublishedArticle | undefined> {
  const article = articleId ? await dataSource.getRepository(HelpArticleRow).findOneBy({ orgId, id: articleId }) : null;
  if (!article) return undefined;
  const translations = await dataSource.getRepository(HelpArticleTranslationRow).find({
    select: TRANSLATION_FIELDS,
    where: { orgId, articleId, status: HelpArticleStatus.PUBLISHED },
  });
  if (!translations.length) return undefined;
  return { article, translations: new Map(translations.map((translation) => [translation.locale, translation])) };
}

/** The bodies of these translations, by translation id. */
export async function bodiesOf(dataSource: DataSource, translationIds: string[]): Promise<Map<string, string>> {
  if (!translationIds.length) return new Map();
  const rows = await dataSource
    .getRepository(HelpArticleTranslationRow)
    .find({ select: ['id', 'bodyHtml'], where: { id: In(translationIds) } });
  return new Map(rows.map((row) => [row.id, row.bodyHtml]));
}

/** Case-folded title, then id: the order of every public list of articles. */
export function byTitle(a: { title: string; id: string }, b: { title: string; id: string }): number {
  const left = a.title.toLocaleLowerCase();
  const right = b.title.toLocaleLowerCase();
  if (left !== right) return left < right ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Each folder's count of `shown` articles in it and its sub-folders. A parent link that loops (moveHelpFolder refuses
 * them; a guard all the same) stops at the folder met twice.
 */
export function subtreeCounts(folders: HelpFolderRow[], shownFolderIds: (string | null)[]): Map<string, number> {
  const parentOf = new Map(folders.map((folder) => [folder.id, folder.parentId]));
  const counts = new Map<string, number>();
  for (const folderId of shownFolderIds) {
    const seen = new Set<string>();
    for (let id = folderId; id && parentOf.has(id) && !seen.has(id); id = parentOf.get(id) ?? null) {
      seen.add(id);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
  }
  return counts;
}

/** Folders in tree order (depth first, siblings by position then id), each with its depth. */
export function treeOrder(folders: HelpFolderRow[]): { folder: HelpFolderRow; depth: number }[] {
  const known = new Set(folders.map((folder) => folder.id));
  const children = new Map<string | null, HelpFolderRow[]>();
  for (const folder of folders) {
    const parent = folder.parentId && known.has(folder.parentId) ? folder.parentId : null;
    children.set(parent, [...(children.get(parent) ?? []), folder]);
  }
  const ordered: { folder: HelpFolderRow; depth: number }[] = [];
  const seen = new Set<string>();
  const visit = (parent: string | null, depth: number) => {
    for (const folder of children.get(parent) ?? []) {
      if (seen.has(folder.id)) continue;
      seen.add(folder.id);
      ordered.push({ folder, depth });
      visit(folder.id, depth + 1);
    }
  };
  visit(null, 0);
  return ordered;
}
