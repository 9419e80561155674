import 'reflect-metadata';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DataSource, type DataSourceOptions, type EntityManager, type MixedList, type EntitySchema } from 'typeorm';
import { isCodePointColumn } from './columns';

/** The two database families the same entities run on; each has its own generated migrations. */
export type DbFamily = 'mysql' | 'sqlite';

/** Migration classes, in TypeORM's own (untyped constructor) shape. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
type MigrationClass = Function;

export interface Migrations {
  mysql: MixedList<MigrationClass>;
  sqlite: MixedList<MigrationClass>;
}

export interface DataSourceSpec {
  url: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- TypeORM's own type for entity classes
  entities: MixedList<Function | string | EntitySchema>;
  migrations: Migrations;
  /** Log every SQL statement (debugging only). */
  logging?: boolean;
  /** Connections of a MySQL-family pool (DB_POOL_SIZE); default 10. */
  poolSize?: number;
}

export interface ParsedDbUrl {
  family: DbFamily;
  /** TypeORM driver: `mariadb` on MariaDB (the `mysql` type emits destructive JSON migrations there), else `mysql`. */
  type: 'mysql' | 'mariadb' | 'better-sqlite3';
  database: string;
  url?: string;
}

export function parseDbUrl(url: string): ParsedDbUrl {
  if (url.startsWith('sqlite:')) {
    return { family: 'sqlite', type: 'better-sqlite3', database: url.slice('sqlite:'.length) };
  }
  const parsed = new URL(url);
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database) throw new Error(`DB_URL must name a database: ${redactDbUrl(url)}`);
  if (parsed.protocol === 'mariadb:')
    return { family: 'mysql', type: 'mariadb', database, url: url.replace(/^mariadb:/, 'mysql:') };
  if (parsed.protocol === 'mysql:') return { family: 'mysql', type: 'mysql', database, url };
  throw new Error(`DB_URL must start with mysql://, mariadb:// or sqlite: (got ${parsed.protocol})`);
}

export function redactDbUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):([^@]+)@/, '//$1:***@');
}

export function dataSourceOptions(spec: DataSourceSpec): DataSourceOptions {
  const db = parseDbUrl(spec.url);
  const common = {
    entities: spec.entities,
    migrations: spec.migrations[db.family],
    migrationsTableName: 'schema_migrations',
    logging: spec.logging ?? false,
  } as const;
  if (db.type === 'better-sqlite3') {
    if (db.database !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(db.database)), { recursive: true });
    return {
      ...common,
      type: 'better-sqlite3',
      database: db.database,
      prepareDatabase: (sqlite: { pragma(source: string): unknown }) => {
        sqlite.pragma('journal_mode = WAL');
        // WAL + NORMAL: durable across process crashes; a power loss may lose the last commits (dev default only).
        sqlite.pragma('synchronous = NORMAL');
        sqlite.pragma('busy_timeout = 5000');
        sqlite.pragma('foreign_keys = ON');
      },
    };
  }
  return {
    ...common,
    type: db.type,
    url: db.url,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    connectorPackage: 'mysql2',
    supportBigNumbers: true,
    extra: { connectionLimit: spec.poolSize ?? 10 },
  };
}

/** Creates the service's database on a MySQL-family server if it is missing (dev, tests, the migration Job). */
export async function ensureDatabase(url: string): Promise<void> {
  const db = parseDbUrl(url);
  if (db.family !== 'mysql' || !db.url) return;
  const server = new URL(db.url);
  server.pathname = '/';
  const admin = new DataSource({
    type: db.type === 'mariadb' ? 'mariadb' : 'mysql',
    url: server.toString(),
    connectorPackage: 'mysql2',
  });
  await admin.initialize();
  try {
    await admin.query(
      `CREATE DATABASE IF NOT EXISTS \`${db.database.replace(/`/g, '')}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await admin.destroy();
  }
}

/**
 * The long-text columns (`LongTextColumn`: message text, webhook payloads in outbox events and flow runs, …) as
 * LONGTEXT on the MySQL family. A TypeORM decorator names one type for every driver: SQLite's TEXT is unbounded but
 * has no LONGTEXT, and MySQL's TEXT holds 64 KB — less than a 100 KB webhook payload (base64 in its outbox event).
 * Entity metadata is built per data source, so it is widened here, before migrations run or are generated; the same
 * pass gives `CodePointTextColumn`s their binary collation there.
 */
function widenLongText(dataSource: DataSource): void {
  if (familyOf(dataSource) !== 'mysql') return;
  for (const entity of dataSource.entityMetadatas)
    for (const column of entity.columns) {
      if (column.type === 'text') column.type = 'longtext';
      // SQLite compares text by code point already; the MySQL family's default collation folds case and accents.
      if (isCodePointColumn(column.target, column.propertyName)) column.collation = 'utf8mb4_bin';
    }
}

/** A data source of the spec, initialized (its metadata built for its family); migrations not run. */
export async function initializeDataSource(spec: DataSourceSpec): Promise<DataSource> {
  const dataSource = new DataSource(dataSourceOptions(spec));
  await dataSource.initialize();
  widenLongText(dataSource);
  return dataSource;
}

export async function openDataSource(spec: DataSourceSpec, options: { migrate: boolean }): Promise<DataSource> {
  if (options.migrate) await ensureDatabase(spec.url);
  const dataSource = await initializeDataSource(spec);
  if (options.migrate) await dataSource.runMigrations({ transaction: 'each' });
  serializeSqliteTransactions(dataSource);
  return dataSource;
}

/**
 * TypeORM's better-sqlite3 driver runs every statement of a DataSource on one connection, and concurrent
 * `transaction()` calls interleave on it: the second BEGIN fails ("cannot start a transaction within a transaction")
 * and the first one's COMMIT then finds no transaction, so both fail — or, worse, a later ROLLBACK undoes work already
 * reported as committed. On SQLite (the embedded default) a data source's transactions therefore run one at a time
 * (reproduced in services/kit/test/data-source.test.ts). MySQL-family pools give each transaction its own connection
 * and are left alone. A `dataSource.transaction()` call from inside a transaction callback would wait for itself:
 * nested work uses the callback's EntityManager.
 */
export function serializeSqliteTransactions(dataSource: DataSource): void {
  if (familyOf(dataSource) !== 'sqlite') return;
  const manager = dataSource.manager;
  const transaction = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  let tail: Promise<unknown> = Promise.resolve();
  const serialized = (...args: unknown[]): Promise<unknown> => {
    const run = tail.then(() => transaction(...args));
    tail = run.catch(() => undefined);
    return run;
  };
  manager.transaction = serialized as EntityManager['transaction'];
}

export function familyOf(dataSource: DataSource): DbFamily {
  return dataSource.options.type === 'better-sqlite3' ? 'sqlite' : 'mysql';
}

/** Driver errors are matched on errno (MySQL family) or code (SQLite), never on message text. */
export function isDuplicateKeyError(error: unknown): boolean {
  const e = error as { errno?: number; code?: string; driverError?: { errno?: number; code?: string } };
  const inner = e.driverError ?? e;
  return (
    inner.errno === 1062 || inner.code === 'SQLITE_CONSTRAINT_UNIQUE' || inner.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}
