import type { DataSourceSpec } from '@svc/kit';
import { entities } from './entities';
import { migrations as mysql } from './migrations/mysql';
import { migrations as sqlite } from './migrations/sqlite';

export const partnerData: Omit<DataSourceSpec, 'url'> = { entities, migrations: { mysql, sqlite } };
