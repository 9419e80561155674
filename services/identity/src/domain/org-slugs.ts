import type { EntityManager } from 'typeorm';
import { OrgRow } from '../entities';

/** Longest slug: a URL segment of the public help center (`/help/:orgSlug`, docs/decisions/0184). */
export const ORG_SLUG_MAX_LENGTH = 63;
const SUFFIX_ROOM = 8;

/**
 * The slug an org's name suggests: ASCII letters and digits in lower case, other runs as one `-` (accents dropped:
 * `Café Nördic` → `cafe-nordic`); `org` when nothing is left.
 */
export function slugBaseOf(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, ORG_SLUG_MAX_LENGTH - SUFFIX_ROOM)
    .replace(/^-+|-+$/g, '');
  return base || 'org';
}

/** `base`, else `base-2`, `base-3`, … : the first that `taken` does not hold. */
export function firstFreeSlug(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const candidate = `${base}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}

/** A slug for a new org named `name`, free at the time of reading (the unique index settles a race). */
export async function freeSlugFor(manager: EntityManager, name: string): Promise<string> {
  const base = slugBaseOf(name);
  const rows = await manager
    .createQueryBuilder(OrgRow, 'o')
    .select('o.slug', 'slug')
    .where('o.slug = :base OR o.slug LIKE :suffixed', { base, suffixed: `${base}-%` })
    .getRawMany<{ slug: string }>();
  return firstFreeSlug(base, new Set(rows.map((row) => row.slug)));
}
