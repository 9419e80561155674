import { toIso } from '@svc/kit';
import type { HelpFolder, HelpFolderNode } from '@svc/proto/content/v1/help_folders';
import type { HelpFolderRow } from '../../entities';
import type { FolderTree } from './tree';

export function folderView(row: HelpFolderRow, depth: number): HelpFolder {
  return {
    id: row.id,
    parentId: row.parentId ?? undefined,
    name: row.name,
    description: row.description ?? undefined,
    position: row.position,
    depth,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

/** The folders under `parentId` (null: the top level), each with its own children, siblings by position. */
export function nodesOf(tree: FolderTree, parentId: string | null = null): HelpFolderNode[] {
  return tree
    .childrenOf(parentId)
    .map((row) => ({ ...folderView(row, tree.depthOf(row.id)), children: nodesOf(tree, row.id) }));
}
