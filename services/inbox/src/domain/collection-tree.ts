import { subtreeIds } from '@svc/kit';
import type { CollectionRow } from '../entities';

/** How many levels the sub-tree under (and including) `rootId` spans: 1 for a leaf. */
export function subtreeHeight(all: CollectionRow[], rootId: string): number {
  const byId = new Map(all.map((r) => [r.id, r]));
  const root = byId.get(rootId);
  if (!root) return 0;
  const ids = subtreeIds(all, rootId);
  return Math.max(...ids.map((id) => (byId.get(id)?.depth ?? root.depth) - root.depth)) + 1;
}

/** Parents before children, siblings oldest first. */
export function treeOrder(all: CollectionRow[]): CollectionRow[] {
  return [...all].sort(
    (a, b) => a.depth - b.depth || a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id),
  );
}
