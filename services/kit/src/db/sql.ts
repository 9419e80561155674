import type { DataSource, EntityManager, EntityMetadata, EntityTarget, ObjectLiteral, QueryResult } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';

/** The part of a better-sqlite3 statement these reads use. */
interface SqliteStatement {
  all(...parameters: unknown[]): unknown[];
  /** Rows as arrays of column values instead of objects. */
  raw(toggle: boolean): SqliteStatement;
}

/** The part of a better-sqlite3 connection these reads use. */
interface SqliteConnection {
  prepare(sql: string): SqliteStatement;
}

/** Distinct statements kept prepared per entity (IN lists of every length are distinct statements). */
const MAX_PREPARED = 200;

/**
 * Statements for hot paths, written from the entity metadata instead of through TypeORM's query builders: a
 * primary-key read, a conditional update or a multi-row insert cost the builder 40–50 µs per row before the
 * database does anything (measured on SQLite: `findOneBy` 53 µs vs 11 µs for the same prepared SELECT; a 50-row
 * `insert` 2.5 ms, and an `insert` of an entity with a column default reads the row back). Values still go through
 * the driver's own conversions, and rows are hydrated as TypeORM would (dates, booleans, enums, simple-json), so both
 * database families get and return what TypeORM would. docs/decisions/0015.
 */
export class EntitySql<T extends ObjectLiteral> {
  /** The escaped table name. */
  readonly table: string;
  private readonly metadata: EntityMetadata;
  private readonly byProperty = new Map<string, ColumnMetadata>();
  private readonly insertHead: string;
  private readonly insertTuple: string;
  /** On SQLite: the data source's one connection, and the SELECTs prepared on it. */
  private readonly sqlite: SqliteConnection | undefined;
  private readonly prepared = new Map<string, ReturnType<SqliteConnection['prepare']>>();

  constructor(
    private readonly dataSource: DataSource,
    target: EntityTarget<T>,
  ) {
    this.metadata = dataSource.getMetadata(target);
    const driver = dataSource.driver;
    this.table = driver.escape(this.metadata.tableName);
    for (const column of this.metadata.columns) this.byProperty.set(column.propertyName, column);
    const columns = this.metadata.columns;
    this.insertHead = `INSERT INTO ${this.table} (${columns.map((c) => driver.escape(c.databaseName)).join(', ')}) VALUES `;
    this.insertTuple = `(${columns.map(() => '?').join(', ')})`;
    this.sqlite =
      dataSource.options.type === 'better-sqlite3'
        ? (driver as unknown as { databaseConnection: SqliteConnection }).databaseConnection
        : undefined;
  }

  private columnOf(property: keyof T & string): ColumnMetadata {
    const column = this.byProperty.get(property);
    if (!column) throw new Error(`${this.metadata.tableName} has no column for ${property}`);
    return column;
  }

  /** The escaped column name of an entity property. */
  column(property: keyof T & string): string {
    return this.dataSource.driver.escape(this.columnOf(property).databaseName);
  }

  /** A property's value as the driver stores it (e.g. a Date as SQLite's datetime text), for a bound parameter. */
  value<K extends keyof T & string>(property: K, value: T[K]): unknown {
    return this.dataSource.driver.preparePersistentValue(value, this.columnOf(property));
  }

  /** An entity from a raw `SELECT *` row, hydrated as TypeORM would. */
  hydrate(raw: Record<string, unknown>): T {
    return this.fill(this.metadata.create() as T, this.metadata.columns, raw);
  }

  /** Sets each column's property on `entity` from the raw row, converted as TypeORM would. */
  private fill<E extends object>(entity: E, columns: readonly ColumnMetadata[], raw: Record<string, unknown>): E {
    const driver = this.dataSource.driver;
    for (const column of columns)
      column.setEntityValue(entity, driver.prepareHydratedValue(raw[column.databaseName], column));
    return entity;
  }

  /**
   * `SELECT * FROM <table> <rest>` (rest: `WHERE …`, `ORDER BY …`, with `?` parameters), hydrated. On SQLite the
   * statement runs on the data source's one connection directly — the connection every transaction of it runs on, so
   * a read inside a transaction sees what it sees through TypeORM — skipping TypeORM's query runner (its logger and
   * broadcaster hooks, statement-cache lookup and promise: a third of a primary-key read's cost).
   */
  async select(manager: EntityManager, rest: string, parameters: unknown[]): Promise<T[]> {
    const rows = await this.rows(manager, `SELECT * FROM ${this.table} ${rest}`, parameters);
    return rows.map((raw) => this.hydrate(raw));
  }

  /**
   * A read of the named properties' columns with a fixed `rest` (`WHERE …` with `?` parameters), built once and kept
   * by a hot path that runs it on every request: column names and SQL text are resolved here, not per call, and on
   * SQLite the statement is prepared once and hands rows over as arrays (better-sqlite3 builds an object row through
   * V8's API one property at a time, which costs more than a primary-key read of a wide row itself).
   */
  prepareSelect<K extends keyof T & string>(properties: readonly K[], rest: string): PreparedSelect<Pick<T, K>> {
    const columns = properties.map((property) => this.columnOf(property));
    const names = columns.map((column) => this.dataSource.driver.escape(column.databaseName)).join(', ');
    return new PreparedSelect(this.dataSource, columns, `SELECT ${names} FROM ${this.table} ${rest}`, this.sqlite);
  }

  /** Like `select`, reading and hydrating only the named properties' columns (a hot read that needs a few). */
  async selectColumns<K extends keyof T & string>(
    manager: EntityManager,
    properties: readonly K[],
    rest: string,
    parameters: unknown[],
  ): Promise<Pick<T, K>[]> {
    const columns = properties.map((property) => this.columnOf(property));
    const names = columns.map((column) => this.dataSource.driver.escape(column.databaseName)).join(', ');
    const rows = await this.rows(manager, `SELECT ${names} FROM ${this.table} ${rest}`, parameters);
    return rows.map((raw) => this.fill({} as Pick<T, K>, columns, raw));
  }

  private async rows(manager: EntityManager, sql: string, parameters: unknown[]): Promise<Record<string, unknown>[]> {
    return (
      this.sqlite ? this.preparedSelect(this.sqlite, sql).all(...parameters) : await manager.query(sql, parameters)
    ) as Record<string, unknown>[];
  }

  private preparedSelect(sqlite: SqliteConnection, sql: string): ReturnType<SqliteConnection['prepare']> {
    let statement = this.prepared.get(sql);
    if (!statement) {
      statement = sqlite.prepare(sql);
      if (this.prepared.size >= MAX_PREPARED) this.prepared.clear();
      this.prepared.set(sql, statement);
    }
    return statement;
  }

  /**
   * `UPDATE <table> SET <set> WHERE <where> [AND <and.sql>]`; returns how many rows changed. `where` holds
   * equalities (an array: IN, null: IS NULL); properties left undefined in `set` are not written.
   */
  async update(
    manager: EntityManager,
    set: Partial<T>,
    where: { [K in keyof T]?: T[K] | readonly T[K][] },
    and?: { sql: string; parameters: unknown[] },
  ): Promise<number> {
    const assignments: string[] = [];
    const parameters: unknown[] = [];
    for (const [property, value] of Object.entries(set)) {
      if (value === undefined) continue;
      assignments.push(`${this.column(property)} = ?`);
      parameters.push(this.value(property, value as T[keyof T & string]));
    }
    const conditions: string[] = [];
    for (const [property, value] of Object.entries(where)) {
      if (value === undefined) throw new Error(`update of ${this.metadata.tableName}: ${property} is undefined`);
      if (value === null) {
        conditions.push(`${this.column(property)} IS NULL`);
      } else if (Array.isArray(value)) {
        conditions.push(`${this.column(property)} IN (${value.map(() => '?').join(', ')})`);
        for (const item of value as T[keyof T & string][]) parameters.push(this.value(property, item));
      } else {
        conditions.push(`${this.column(property)} = ?`);
        parameters.push(this.value(property, value as T[keyof T & string]));
      }
    }
    if (and) {
      conditions.push(and.sql);
      parameters.push(...and.parameters);
    }
    if (!assignments.length || !conditions.length)
      throw new Error(`update of ${this.metadata.tableName}: nothing to do`);
    return executeStatement(
      manager,
      `UPDATE ${this.table} SET ${assignments.join(', ')} WHERE ${conditions.join(' AND ')}`,
      parameters,
    );
  }

  /** Inserts every row with one multi-row INSERT (chunked to stay under the bound-parameter limits). */
  async insert(manager: EntityManager, rows: T[]): Promise<void> {
    if (!rows.length) return;
    const columns = this.metadata.columns;
    const driver = this.dataSource.driver;
    const perStatement = Math.max(1, Math.floor(10_000 / columns.length));
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      const parameters = chunk.flatMap((row) =>
        columns.map((column) => driver.preparePersistentValue(column.getEntityValue(row), column) as unknown),
      );
      await manager.query(this.insertHead + chunk.map(() => this.insertTuple).join(', '), parameters);
    }
  }
}

/** A read built once by `EntitySql.prepareSelect`; rows hydrated as TypeORM would. */
export class PreparedSelect<R extends object> {
  private statement: SqliteStatement | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly columns: readonly ColumnMetadata[],
    private readonly sql: string,
    private readonly sqlite: SqliteConnection | undefined,
  ) {}

  /** The rows matching `parameters`, read on the manager's connection (its transaction, if any). */
  async all(manager: EntityManager, parameters: unknown[]): Promise<R[]> {
    if (this.sqlite) {
      this.statement ??= this.sqlite.prepare(this.sql).raw(true);
      return (this.statement.all(...parameters) as unknown[][]).map((values) => this.hydrate(values));
    }
    const rows = (await manager.query(this.sql, parameters)) as Record<string, unknown>[];
    return rows.map((raw) => this.hydrate(this.columns.map((column) => raw[column.databaseName])));
  }

  /** A row from its column values in `columns` order, converted as TypeORM would. */
  private hydrate(values: unknown[]): R {
    const driver = this.dataSource.driver;
    const row = {} as R;
    this.columns.forEach((column, index) =>
      column.setEntityValue(row, driver.prepareHydratedValue(values[index], column)),
    );
    return row;
  }
}

const cache = new WeakMap<DataSource, Map<EntityTarget<ObjectLiteral>, EntitySql<ObjectLiteral>>>();

/** The (cached) statement helper of an entity on a data source. */
export function entitySql<T extends ObjectLiteral>(dataSource: DataSource, target: EntityTarget<T>): EntitySql<T> {
  let byTarget = cache.get(dataSource);
  if (!byTarget) {
    byTarget = new Map();
    cache.set(dataSource, byTarget);
  }
  let sql = byTarget.get(target);
  if (!sql) {
    sql = new EntitySql(dataSource, target) as unknown as EntitySql<ObjectLiteral>;
    byTarget.set(target, sql);
  }
  return sql as unknown as EntitySql<T>;
}

/**
 * Runs an UPDATE or DELETE (or any statement) on the manager's connection (its transaction, if any) and returns how
 * many rows it changed, on both database families.
 */
export async function executeStatement(manager: EntityManager, sql: string, parameters: unknown[]): Promise<number> {
  const runner = manager.queryRunner ?? manager.connection.createQueryRunner();
  try {
    const result = (await runner.query(sql, parameters, true)) as QueryResult;
    return result.affected ?? 0;
  } finally {
    if (!manager.queryRunner) await runner.release();
  }
}

/** One entity by primary key, hydrated as TypeORM would (dates, booleans, enums), or null. */
export async function selectById<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  id: string,
): Promise<T | null> {
  const sql = entitySql(manager.connection, target);
  const [primary] = manager.connection.getMetadata(target).primaryColumns;
  if (!primary) throw new Error(`${sql.table} has no primary column`);
  const [row] = await sql.select(manager, `WHERE ${manager.connection.driver.escape(primary.databaseName)} = ?`, [id]);
  return row ?? null;
}

/** Which of `ids` exist as primary keys of the entity's table. */
export async function existingIds<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  ids: string[],
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const [primary] = metadata.primaryColumns;
  if (!primary) throw new Error(`${metadata.tableName} has no primary column`);
  const column = driver.escape(primary.databaseName);
  const rows = (await manager.query(
    `SELECT ${column} AS id FROM ${driver.escape(metadata.tableName)} WHERE ${column} IN (${unique.map(() => '?').join(', ')})`,
    unique,
  )) as { id: string }[];
  return rows.map((row) => row.id);
}

/** Inserts every row with one multi-row INSERT (chunked to stay under the bound-parameter limits). */
export async function insertRows<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: T[],
): Promise<void> {
  await entitySql(manager.connection, target).insert(manager, rows);
}
