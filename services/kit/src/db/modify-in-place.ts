/** A schema change as TypeORM's diff writes it: the statements up, and the ones that undo them. */
export interface SchemaChange {
  up: string[];
  down: string[];
}

const DROP_COLUMN = /^ALTER TABLE `([^`]+)` DROP COLUMN `([^`]+)`$/;
const ADD_COLUMN = /^ALTER TABLE `([^`]+)` ADD `([^`]+)` (.+)$/s;
const DROP_INDEX = /^DROP INDEX `([^`]+)` ON `([^`]+)`$/;
const CREATE_INDEX = /^CREATE (?:UNIQUE |FULLTEXT |SPATIAL )?INDEX `([^`]+)` ON `([^`]+)` \((.+)\)$/s;

/**
 * TypeORM's MySQL-family diff changes a column's type (e.g. TEXT → LONGTEXT) by dropping the column and adding it
 * again: every value in it is lost, and so is an index TypeORM does not manage (the inbox's FULLTEXT index). A drop
 * immediately followed by an add of the same column becomes one `MODIFY`, which converts the values in place and keeps
 * the column's indexes; the statements that dropped and re-created those indexes only because of the drop are removed
 * from both directions. If that removes an index change the entities did want, `migrations:check` still reports it.
 */
export function modifyInPlace(change: SchemaChange): SchemaChange {
  const modified = new Set<string>();
  const rewrite = (queries: string[]): string[] => {
    const out: string[] = [];
    for (let i = 0; i < queries.length; i++) {
      const query = queries[i] ?? '';
      const drop = DROP_COLUMN.exec(query);
      const add = drop ? ADD_COLUMN.exec(queries[i + 1] ?? '') : null;
      if (drop && add && drop[1] === add[1] && drop[2] === add[2]) {
        out.push(`ALTER TABLE \`${drop[1]}\` MODIFY \`${drop[2]}\` ${add[3]}`);
        modified.add(`${drop[1]}.${drop[2]}`);
        i++;
        continue;
      }
      out.push(query);
    }
    return out;
  };
  const up = rewrite(change.up);
  const down = rewrite(change.down);
  const incidental = new Set<string>();
  for (const query of [...up, ...down]) {
    const index = CREATE_INDEX.exec(query);
    if (!index) continue;
    const columns = [...(index[3] ?? '').matchAll(/`([^`]+)`/g)].map((m) => `${index[2]}.${m[1]}`);
    if (columns.some((column) => modified.has(column))) incidental.add(`${index[2]}.${index[1]}`);
  }
  const keep = (query: string): boolean => {
    // Both patterns capture the index name first and its table second.
    const index = DROP_INDEX.exec(query) ?? CREATE_INDEX.exec(query);
    return !index || !incidental.has(`${index[2]}.${index[1]}`);
  };
  return { up: up.filter(keep), down: down.filter(keep) };
}
