import { expect } from 'chai';
import { openDataSource } from '../src';

describe('openDataSource on SQLite', () => {
  it('runs concurrent transactions one at a time, so a rollback never touches another one’s committed work', async () => {
    const dataSource = await openDataSource(
      { url: 'sqlite::memory:', entities: [], migrations: { mysql: [], sqlite: [] } },
      { migrate: false },
    );
    try {
      await dataSource.query('CREATE TABLE t (v TEXT)');
      const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const kept = dataSource.transaction(async (manager) => {
        await manager.query("INSERT INTO t VALUES ('kept')");
        await pause(20);
      });
      const failed = dataSource.transaction(async (manager) => {
        await pause(5);
        await manager.query("INSERT INTO t VALUES ('rolled back')");
        await pause(30);
        throw new Error('this one fails');
      });
      const outcomes = await Promise.allSettled([kept, failed]);
      expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected']);
      expect(await dataSource.query('SELECT v FROM t')).to.deep.equal([{ v: 'kept' }]);
    } finally {
      await dataSource.destroy();
    }
  });
});
