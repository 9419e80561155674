import type { EntityManager } from 'typeorm';
import { InvalidArgument, NotFound, familyOf, isId } from '@svc/kit';
import { HelpArticleStatus } from '@svc/proto/content/v1/content';
import { HelpArticleRow, HelpArticleTranslationRow, HelpFolderRow } from '../../entities';
import { FolderTree, type ArticleTally } from './tree';

/**
 * The org's folders, read whole (bounded by MAX_FOLDERS_PER_ORG). `lock`: a write holds them until it commits, so two
 * concurrent moves on the MySQL family cannot each pass the cycle check against the other's old tree (SQLite
 * transactions are serial already).
 */
export async function loadTree(manager: EntityManager, orgId: string, lock = false): Promise<FolderTree> {
  const locked = lock && familyOf(manager.connection) === 'mysql';
  return new FolderTree(
    await manager.find(HelpFolderRow, {
      where: { orgId },
      ...(locked ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    }),
  );
}

/** A folder of the org, or NOT_FOUND naming `field` (also for another org's: no existence oracle). */
export function folderIn(tree: FolderTree, id: string, field: string): HelpFolderRow {
  if (!isId(id)) throw new InvalidArgument(`${field} must be a 24-character hex id`, { field });
  const row = tree.get(id);
  if (!row) throw new NotFound(`${field} names no help folder of this org`, { field });
  return row;
}

/** Writes the positions of `order` (ids of siblings) where they changed; `skip` is written by the caller. */
export async function renumber(
  manager: EntityManager,
  tree: FolderTree,
  order: string[],
  skip?: string,
): Promise<void> {
  for (const [position, id] of order.entries())
    if (id !== skip && tree.get(id)?.position !== position)
      await manager.update(HelpFolderRow, { id, orgId: tree.get(id)?.orgId }, { position });
}

/**
 * Published and draft articles filed directly in each folder of the org, from one grouped query (docs/decisions/0196):
 * an article counts by its translation in `locale`, or by its default-locale translation when no locale is given;
 * an article without that translation is not counted.
 */
export async function directTallies(
  manager: EntityManager,
  orgId: string,
  locale: string | undefined,
): Promise<Map<string, ArticleTally>> {
  const translation = locale === undefined ? 't.locale = a.defaultLocale' : 't.locale = :locale';
  const rows = await manager
    .getRepository(HelpArticleRow)
    .createQueryBuilder('a')
    .innerJoin(HelpArticleTranslationRow, 't', `t.orgId = a.orgId AND t.articleId = a.id AND ${translation}`, {
      locale,
    })
    .select('a.folderId', 'folderId')
    .addSelect('SUM(CASE WHEN t.status = :published THEN 1 ELSE 0 END)', 'published')
    .addSelect('SUM(CASE WHEN t.status = :draft THEN 1 ELSE 0 END)', 'draft')
    .where('a.orgId = :orgId AND a.folderId IS NOT NULL', {
      orgId,
      published: HelpArticleStatus.PUBLISHED,
      draft: HelpArticleStatus.DRAFT,
    })
    .groupBy('a.folderId')
    .getRawMany<{ folderId: string; published: string | number | null; draft: string | number | null }>();
  return new Map(
    rows.map((row) => [row.folderId, { published: Number(row.published ?? 0), draft: Number(row.draft ?? 0) }]),
  );
}
