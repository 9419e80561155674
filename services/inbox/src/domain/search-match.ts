import { prefixRange } from '@svc/kit';

/**
 * The condition that a `message_terms` row (alias `row`, in the org `:orgId`) belongs to a message holding every word
 * as a term prefix (docs/decisions/0055-term-search-queries.md). The longest word drives: its range of the primary
 * key is what the database reads, in creation order. Each other word is `message_id IN` its own range, which MariaDB
 * runs as a semi-join (each range read once, in key order) rather than one lookup of `ix_message_terms_message` per
 * candidate (random reads: ~15× slower at the bench's volume). A word may match several terms of one message (`invo`:
 * invoice, invoices): a reader that lists messages groups the rows by message. Column names, not property names: the
 * condition also runs inside raw subqueries.
 */
export function termMatch(
  row: string,
  words: string[],
  includeNotes: boolean,
): { sql: string; parameters: Record<string, unknown> } {
  const [driver, ...others] = [...words].sort((a, b) => [...b].length - [...a].length);
  if (driver === undefined) throw new Error('termMatch needs a word');
  const driving = prefixRange(row, driver, `${row}Word`);
  const sql = [`${row}.org_id = :orgId`, driving.sql];
  const parameters: Record<string, unknown> = { ...driving.parameters };
  if (!includeNotes) {
    sql.push(`${row}.internal = :${row}Internal`);
    parameters[`${row}Internal`] = false;
  }
  others.forEach((word, i) => {
    const other = `${row}_w${i}`;
    const range = prefixRange(other, word, `${row}Word${i}`);
    sql.push(
      `${row}.message_id IN (SELECT ${other}.message_id FROM message_terms ${other}` +
        ` WHERE ${other}.org_id = :orgId AND ${range.sql})`,
    );
    Object.assign(parameters, range.parameters);
  });
  return { sql: sql.join(' AND '), parameters };
}
