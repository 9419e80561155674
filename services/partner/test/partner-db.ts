import type { DataSource } from 'typeorm';
import { dropTestDatabase, openDataSource, testDbUrl } from '@svc/kit';
import { partnerData } from '../src/data';

const urls = new WeakMap<DataSource, string>();

/** A fresh migrated partner database: SQLite (in memory, or `file`), or MariaDB under `npm run test:infra`. */
export async function openPartnerDb(name: string, file?: string): Promise<DataSource> {
  const url = testDbUrl(name, file);
  const dataSource = await openDataSource({ ...partnerData, url }, { migrate: true });
  urls.set(dataSource, url);
  return dataSource;
}

/** One more connection to a database of `openPartnerDb`, as a second replica has (not migrated again). */
export function openPartnerReplica(dataSource: DataSource): Promise<DataSource> {
  return openDataSource({ ...partnerData, url: urlOf(dataSource) }, { migrate: false });
}

/** Closes a database of `openPartnerDb`, dropping it on MariaDB (`npm run test:infra`). */
export async function closePartnerDb(dataSource: DataSource): Promise<void> {
  await dataSource.destroy();
  await dropTestDatabase(urlOf(dataSource));
}

function urlOf(dataSource: DataSource): string {
  const url = urls.get(dataSource);
  if (!url) throw new Error('not a database of openPartnerDb');
  return url;
}
