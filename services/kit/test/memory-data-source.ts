import type { DataSource } from 'typeorm';
import { openDataSource, type DataSourceSpec } from '../src';

/** An in-memory SQLite data source with the entities' tables created from their metadata (no migrations). */
export async function memoryDataSource(entities: DataSourceSpec['entities']): Promise<DataSource> {
  const dataSource = await openDataSource(
    { url: 'sqlite::memory:', entities, migrations: { mysql: [], sqlite: [] } },
    { migrate: false },
  );
  await dataSource.synchronize();
  return dataSource;
}
