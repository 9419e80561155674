import { InvalidArgument } from '../errors';

/**
 * What a word is for text search (the inbox's messages, the help center's articles), the same for the text indexed
 * and the query searched, on both database families (docs/decisions/0053-search-terms-tokenisation.md): a run of
 * letters and digits after folding case and accents.
 */
export const MIN_WORD_LENGTH = 3;
/** Longer words are kept as their first MAX_TERM_LENGTH characters (code points), in the index and in queries. */
export const MAX_TERM_LENGTH = 64;
const MAX_QUERY_LENGTH = 200;
const MAX_WORDS = 10;

/**
 * The folded words of a text: compatibility decomposition (ligatures, widths), lower case, `ß` as `ss`, combining
 * marks (accents) removed, then cut into runs of letters and digits. Words shorter than MIN_WORD_LENGTH are dropped;
 * longer than MAX_TERM_LENGTH, cut.
 */
function foldedWords(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/\p{M}+/gu, '');
  const words: string[] = [];
  for (const word of folded.match(/[\p{L}\p{N}]+/gu) ?? []) {
    const codePoints = [...word];
    if (codePoints.length >= MIN_WORD_LENGTH) words.push(codePoints.slice(0, MAX_TERM_LENGTH).join(''));
  }
  return words;
}

/** The distinct terms a text is indexed under (one index row each: message_terms, help_article_terms). */
export function termsOf(text: string): string[] {
  return [...new Set(foldedWords(text))];
}

/**
 * The words of a search query, folded like the text. Every word must occur as the prefix of a term of the text.
 * No user text reaches SQL other than as a bound value.
 */
export function searchWords(query: string, field = 'query'): string[] {
  if (query.length > MAX_QUERY_LENGTH)
    throw new InvalidArgument(`${field} is longer than ${MAX_QUERY_LENGTH} characters`, { field });
  const words = termsOf(query);
  if (!words.length)
    throw new InvalidArgument(`${field} needs a word of at least ${MIN_WORD_LENGTH} letters or digits`, { field });
  if (words.length > MAX_WORDS) throw new InvalidArgument(`${field} has more than ${MAX_WORDS} words`, { field });
  return words;
}

/**
 * Above every term that starts with a prefix: no term holds U+10FFFF (a noncharacter, not a letter or digit), and
 * terms compare by code point on both families (`CodePointTextColumn`).
 */
const AFTER_EVERY_SUFFIX = '\u{10FFFF}';

/** `alias`.term starts with the word: a range on the term index, bound values named after `name`. */
export function prefixRange(
  alias: string,
  word: string,
  name: string,
): { sql: string; parameters: Record<string, string> } {
  return {
    sql: `${alias}.term >= :${name}From AND ${alias}.term < :${name}To`,
    parameters: { [`${name}From`]: word, [`${name}To`]: `${word}${AFTER_EVERY_SUFFIX}` },
  };
}

/** A LIKE pattern for `text` anywhere, lower-cased, escaped with `!` (a backslash means different things in MySQL
 * and SQLite string literals); use with `ESCAPE '!'`. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
