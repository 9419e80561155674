import { InvalidArgument } from '@svc/kit';

export const MAX_NAME_LENGTH = 100;

/**
 * Above every name key that starts with a prefix: no name holds U+10FFFF (a noncharacter), and keys compare by code
 * point on both database families (`CodePointTextColumn`).
 */
const AFTER_EVERY_SUFFIX = '\u{10FFFF}';

/** A name as stored: NFC, trimmed, each run of white space one space, no control characters. */
function cleanName(value: string): string {
  return value.normalize('NFC').replace(/\s+/gu, ' ').trim();
}

/** What names are compared by (decision 0201): the clean name in lower case. */
const keyOf = (name: string) => name.toLowerCase();

/** A term's name and its key, or BAD_USER_INPUT naming `field`. */
export function termName(value: string, field = 'name'): { name: string; nameKey: string } {
  const name = cleanName(value);
  const nameKey = keyOf(name);
  if (!name) throw new InvalidArgument(`${field} must not be empty`, { field });
  if (/[\p{Cc}\p{Cs}\u{10FFFF}]/u.test(name))
    throw new InvalidArgument(`${field} must not hold control characters`, { field });
  if ([...name].length > MAX_NAME_LENGTH || [...nameKey].length > MAX_NAME_LENGTH)
    throw new InvalidArgument(`${field} must be at most ${MAX_NAME_LENGTH} characters`, { field });
  return { name, nameKey };
}

/** The name-key range of names starting with `query` (folded like names); undefined for an empty query. */
export function namePrefixRange(query: string, field = 'query'): { from: string; to: string } | undefined {
  const prefix = keyOf(cleanName(query));
  if ([...prefix].length > MAX_NAME_LENGTH)
    throw new InvalidArgument(`${field} must be at most ${MAX_NAME_LENGTH} characters`, { field });
  return prefix ? { from: prefix, to: `${prefix}${AFTER_EVERY_SUFFIX}` } : undefined;
}
