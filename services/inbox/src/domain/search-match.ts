import { prefixRange } from './search-terms';

/**
 * The condition that a `message_terms` row (alias `row`, in the org `:orgId`) belongs to a message holding every word
 * as a term prefix (docs/decisions/0055-term-search-queries.md). The longest word drives: its range of the primary
 * key is what the database reads, in creation order; each other word is a lookup of the row's message in
 * `ix_message_terms_message`. A word may match several terms of one message (`invo`: invoice, invoices): with
 * `onePerMessage` only the row of its smallest matching term stands for the message, so a page never lists a message
 * twice. Column names, not property names: the condition also runs inside raw subqueries.
 */
export function termMatch(
  row: string,
  words: string[],
  includeNotes: boolean,
  onePerMessage = false,
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
  if (onePerMessage)
    sql.push(
      `NOT EXISTS (SELECT 1 FROM message_terms ${row}_first WHERE ${row}_first.message_id = ${row}.message_id` +
        ` AND ${row}_first.term >= :${row}WordFrom AND ${row}_first.term < ${row}.term)`,
    );
  others.forEach((word, i) => {
    const other = `${row}_w${i}`;
    const range = prefixRange(other, word, `${row}Word${i}`);
    sql.push(
      `EXISTS (SELECT 1 FROM message_terms ${other} WHERE ${other}.message_id = ${row}.message_id AND ${range.sql})`,
    );
    Object.assign(parameters, range.parameters);
  });
  return { sql: sql.join(' AND '), parameters };
}
