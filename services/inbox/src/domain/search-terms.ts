import { InvalidArgument } from '@svc/kit';
import type { DataSource } from 'typeorm';

/** InnoDB indexes no word shorter than this (innodb_ft_min_token_size); SQLite follows so both match alike. */
const MIN_WORD_LENGTH = 3;
const MAX_QUERY_LENGTH = 200;
const MAX_WORDS = 10;

export type FullTextDialect = 'mysql' | 'sqlite';

export function fullTextDialectOf(dataSource: DataSource): FullTextDialect {
  return dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
}

/**
 * The words of a search query: letters and digits only, so no user text ever reaches the MATCH syntax of either
 * engine. Every word must occur (as a prefix of a word of the text).
 */
export function searchWords(query: string, field = 'query'): string[] {
  if (query.length > MAX_QUERY_LENGTH)
    throw new InvalidArgument(`${field} is longer than ${MAX_QUERY_LENGTH} characters`, { field });
  const words = [
    ...new Set((query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length >= MIN_WORD_LENGTH)),
  ];
  if (!words.length)
    throw new InvalidArgument(`${field} needs a word of at least ${MIN_WORD_LENGTH} letters or digits`, { field });
  if (words.length > MAX_WORDS) throw new InvalidArgument(`${field} has more than ${MAX_WORDS} words`, { field });
  return words;
}

/**
 * A SQL condition that `alias`.text contains every word, and its parameters. MySQL: the FULLTEXT index in boolean
 * mode (`+word*`); SQLite: the FTS5 table `messages_fts` (`"word"*`, implicitly AND-ed).
 */
export function fullTextCondition(
  dialect: FullTextDialect,
  alias: string,
  words: string[],
  parameter = 'fullText',
): { sql: string; parameters: Record<string, string> } {
  if (dialect === 'mysql')
    return {
      sql: `MATCH(${alias}.text) AGAINST (:${parameter} IN BOOLEAN MODE)`,
      parameters: { [parameter]: words.map((w) => `+${w}*`).join(' ') },
    };
  return {
    sql: `${alias}.id IN (SELECT message_id FROM messages_fts WHERE messages_fts MATCH :${parameter})`,
    parameters: { [parameter]: words.map((w) => `"${w}"*`).join(' ') },
  };
}

/** A LIKE pattern for `text` anywhere, lower-cased, escaped with `!` (a backslash means different things in MySQL
 * and SQLite string literals); use with `ESCAPE '!'`. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}
