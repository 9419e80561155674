import type { EntityManager } from 'typeorm';
import { InvalidArgument } from '@svc/kit';
import { HelpArticleTranslationRow } from '../../entities';

/** Long enough for a title's gist, short enough to leave room for a suffix within the column (200). */
export const MAX_SLUG_LENGTH = 80;
/** Lower-case letters (any script) and digits, in runs joined by single dashes. */
const SLUG = /^[\p{Ll}\p{Lo}\p{Lm}\p{N}]+(?:-[\p{Ll}\p{Lo}\p{Lm}\p{N}]+)*$/u;

/**
 * The slug a title gives (docs/decisions/0185): folded like search terms (compatibility decomposition, lower case,
 * accents removed), each run of anything but letters and digits one dash, at most MAX_SLUG_LENGTH code points cut at
 * a dash where there is one; `article` when the title has no letter or digit.
 */
export function slugOf(title: string): string {
  const words = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/\p{M}+/gu, '')
    .match(/[\p{L}\p{N}]+/gu);
  if (!words) return 'article';
  let slug = '';
  for (const word of words) {
    const next = slug ? `${slug}-${word}` : word;
    if ([...next].length > MAX_SLUG_LENGTH) return slug || [...word].slice(0, MAX_SLUG_LENGTH).join('');
    slug = next;
  }
  return slug;
}

/** A slug the caller chose: already in slug form, or INVALID_ARGUMENT naming the field. */
export function checkSlug(value: string, field = 'slug'): string {
  if ([...value].length > MAX_SLUG_LENGTH || !SLUG.test(value))
    throw new InvalidArgument(
      `${field} must be lower-case letters and digits joined by single dashes, at most ${MAX_SLUG_LENGTH} characters`,
      { field },
    );
  return value;
}

/**
 * `base` when no other translation of the org in `locale` has it, else the first free `base-2`, `base-3`, …
 * (docs/decisions/0185). `except`: the translation being renamed keeps its own slug.
 */
export async function freeSlug(
  manager: EntityManager,
  at: { orgId: string; locale: string; except?: string },
  base: string,
): Promise<string> {
  const taken = await manager
    .createQueryBuilder(HelpArticleTranslationRow, 't')
    .select('t.slug', 'slug')
    .where('t.org_id = :orgId AND t.locale = :locale', at)
    // Slugs hold no `%` or `_`: the pattern needs no escaping.
    .andWhere('(t.slug = :base OR t.slug LIKE :suffixed)', { base, suffixed: `${base}-%` })
    .andWhere(at.except ? 't.id <> :except' : '1 = 1', { except: at.except })
    .getRawMany<{ slug: string }>();
  const used = new Set(taken.map((row) => row.slug));
  if (!used.has(base)) return base;
  for (let n = 2; ; n += 1) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}
