import { DataSource, type Logger } from 'typeorm';
import { entities } from '../src/entities';

/** An in-memory SQLite database with the inbox's tables that hands every statement it runs to `onStatement`. */
export function statementLoggingDatabase(onStatement: (sql: string, parameters: unknown[]) => void): DataSource {
  const logger: Logger = {
    logQuery: (sql, parameters) => onStatement(sql, parameters ?? []),
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };
  return new DataSource({
    type: 'better-sqlite3',
    database: ':memory:',
    entities,
    synchronize: true,
    logging: ['query'],
    logger,
  });
}
