import type { DataSource } from 'typeorm';
import { entitySql, type PreparedSelect } from '@svc/kit';
import { ConnectionRow } from '../entities';

/** What serving a request reads of its connection (not its name, schema or timestamps). */
const SERVING_COLUMNS = [
  'id',
  'orgId',
  'status',
  'authMode',
  'secretHash',
  'secretVersion',
  'signingSecretSealed',
  'legacySigningSecret',
  'identifierType',
  'identifierPath',
  'channelIntegrationId',
  'hmacHeader',
  'hmacEncoding',
  'hmacPrefix',
  'captureUntil',
  'revision',
] as const satisfies readonly (keyof ConnectionRow)[];

export type ServingConnection = Pick<ConnectionRow, (typeof SERVING_COLUMNS)[number]>;

/** Connections kept per replica; a sender beyond them costs one more read, nothing else. */
const MAX_KEPT = 10_000;

/**
 * The connection a request is served with. Every request reads the row's `revision` from the database (one column by
 * primary key), so pause, resume, rotation, a new signing secret and an opened capture tunnel apply to the next
 * request on every replica, exactly as when the whole row was read each time (docs/decisions/0015); the other 15
 * columns are read and hydrated again only when the revision moved. A deleted connection reads no revision and is
 * forgotten.
 */
export class ServingConnections {
  private readonly kept = new Map<string, ServingConnection>();
  private readonly revisionOf: PreparedSelect<Pick<ConnectionRow, 'revision'>>;
  private readonly rowOf: PreparedSelect<ServingConnection>;

  constructor(private readonly dataSource: DataSource) {
    const sql = entitySql(dataSource, ConnectionRow);
    const byId = `WHERE ${sql.column('id')} = ?`;
    this.revisionOf = sql.prepareSelect(['revision'], byId);
    this.rowOf = sql.prepareSelect(SERVING_COLUMNS, byId);
  }

  async get(id: string): Promise<ServingConnection | null> {
    const manager = this.dataSource.manager;
    const [current] = await this.revisionOf.all(manager, [id]);
    if (!current) {
      this.kept.delete(id);
      return null;
    }
    const kept = this.kept.get(id);
    if (kept?.revision === current.revision) return kept;
    // Read in one statement, the row and its revision agree even if it changed again since the line above.
    const [row] = await this.rowOf.all(manager, [id]);
    this.kept.delete(id);
    if (!row) return null;
    if (this.kept.size >= MAX_KEPT) this.kept.delete(this.kept.keys().next().value ?? '');
    this.kept.set(id, row);
    return row;
  }
}
