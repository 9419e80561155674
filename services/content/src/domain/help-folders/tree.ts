import { FailedPrecondition, InvalidArgument, childrenByParent, depthsOf, subtreeIds } from '@svc/kit';
import type { HelpFolderRow } from '../../entities';

/** Levels of nesting (docs/decisions/0195): a top-level folder is depth 0, the deepest allowed is MAX_DEPTH - 1. */
export const MAX_DEPTH = 5;
export const MAX_FOLDERS_PER_ORG = 1000;

const bySiblingOrder = (a: HelpFolderRow, b: HelpFolderRow) => a.position - b.position || a.id.localeCompare(b.id);

/** An org's folders as a tree (small: at most MAX_FOLDERS_PER_ORG rows, read whole). */
export class FolderTree {
  private readonly byId: Map<string, HelpFolderRow>;
  private readonly children: Map<string | null, HelpFolderRow[]>;
  private readonly depths: Map<string, number>;

  constructor(readonly rows: readonly HelpFolderRow[]) {
    this.byId = new Map(rows.map((row) => [row.id, row]));
    this.children = childrenByParent([...rows].sort(bySiblingOrder));
    this.depths = depthsOf(rows);
  }

  get(id: string): HelpFolderRow | undefined {
    return this.byId.get(id);
  }

  depthOf(id: string): number {
    return this.depths.get(id) ?? 0;
  }

  /** The children of a folder (null: the top level), by position then id. */
  childrenOf(parentId: string | null): HelpFolderRow[] {
    return this.children.get(parentId) ?? [];
  }

  /** Every folder, each followed by the folders under it (a table of contents): siblings by position then id. */
  preorder(parentId: string | null = null): HelpFolderRow[] {
    return this.childrenOf(parentId).flatMap((row) => [row, ...this.preorder(row.id)]);
  }

  /** The folder and every folder under it. */
  subtreeOf(id: string): string[] {
    return subtreeIds(this.rows, id);
  }

  /** How many levels the sub-tree under (and including) the folder spans: 1 for a leaf. */
  heightOf(id: string): number {
    const base = this.depthOf(id);
    return Math.max(...this.subtreeOf(id).map((inner) => this.depthOf(inner) - base)) + 1;
  }

  /**
   * Refuses putting `folderId` (with its sub-tree; undefined for a new folder) under `parentId` (null: the top) when
   * that would make a cycle or nest deeper than MAX_DEPTH: FAILED_PRECONDITION naming parentId.
   */
  checkPlacement(folderId: string | undefined, parentId: string | null): void {
    if (folderId !== undefined && parentId !== null && this.subtreeOf(folderId).includes(parentId))
      throw new FailedPrecondition('a help folder cannot move under itself or a folder under it', {
        field: 'parentId',
      });
    const depth = parentId === null ? 0 : this.depthOf(parentId) + 1;
    const height = folderId === undefined ? 1 : this.heightOf(folderId);
    if (depth + height > MAX_DEPTH)
      throw new FailedPrecondition(`help folders nest at most ${MAX_DEPTH} levels deep`, { field: 'parentId' });
  }
}

/**
 * The ids of `parentId`'s children once `placed` (ids, in their order) stand at `position` among the others (unset:
 * last). A position beyond the end is BAD_USER_INPUT naming `position`.
 */
export function siblingOrder(
  tree: FolderTree,
  parentId: string | null,
  placed: string[],
  position: number | undefined,
): string[] {
  const others = tree
    .childrenOf(parentId)
    .map((row) => row.id)
    .filter((id) => !placed.includes(id));
  const at = position ?? others.length;
  if (!Number.isInteger(at) || at < 0 || at > others.length)
    throw new InvalidArgument(`position must be between 0 and ${others.length}`, { field: 'position' });
  return [...others.slice(0, at), ...placed, ...others.slice(at)];
}

/** Published and draft articles, as one folder's counts or a sum of several. */
export interface ArticleTally {
  published: number;
  draft: number;
}

export interface FolderCounts extends ArticleTally {
  folderId: string;
  directPublished: number;
  directDraft: number;
}

/** The counts of a folder from the tallies of the articles filed directly in each folder (docs/decisions/0196). */
export function rollUp(tree: FolderTree, direct: ReadonlyMap<string, ArticleTally>, folderId: string): FolderCounts {
  const own = direct.get(folderId) ?? { published: 0, draft: 0 };
  const total = { published: 0, draft: 0 };
  for (const id of tree.subtreeOf(folderId)) {
    total.published += direct.get(id)?.published ?? 0;
    total.draft += direct.get(id)?.draft ?? 0;
  }
  return { folderId, ...total, directPublished: own.published, directDraft: own.draft };
}
