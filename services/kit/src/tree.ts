/** A row of a tree stored with a reference to its parent (inbox collections, help folders). */
export interface TreeRow {
  id: string;
  parentId: string | null;
}

/** Each parent's children, in the order of `all`. */
export function childrenByParent<T extends TreeRow>(all: readonly T[]): Map<string | null, T[]> {
  const children = new Map<string | null, T[]>();
  for (const row of all) children.set(row.parentId, [...(children.get(row.parentId) ?? []), row]);
  return children;
}

/** The ids of `rootId` and every row under it, the root first, then level by level. */
export function subtreeIds(all: readonly TreeRow[], rootId: string): string[] {
  const children = childrenByParent(all);
  const ids: string[] = [];
  const queue = [rootId];
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    ids.push(id);
    queue.push(...(children.get(id) ?? []).map((child) => child.id));
  }
  return ids;
}

/** How many levels are above each row: 0 at the top. A row whose parent is missing counts as a top one. */
export function depthsOf(all: readonly TreeRow[]): Map<string, number> {
  const parentOf = new Map(all.map((row) => [row.id, row.parentId]));
  const depths = new Map<string, number>();
  const depthOf = (id: string, seen: Set<string>): number => {
    const known = depths.get(id);
    if (known !== undefined) return known;
    const parent = parentOf.get(id);
    // A cycle stored by mistake ends the walk instead of looping.
    const depth = parent && parentOf.has(parent) && !seen.has(parent) ? depthOf(parent, seen.add(id)) + 1 : 0;
    depths.set(id, depth);
    return depth;
  };
  for (const row of all) depthOf(row.id, new Set());
  return depths;
}
