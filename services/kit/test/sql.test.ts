import { expect } from 'chai';
import { Column, Entity, type DataSource } from 'typeorm';
import {
  BoolColumn,
  DateTimeColumn,
  EnumColumn,
  IdColumn,
  JsonColumn,
  RefColumn,
  entitySql,
  existingIds,
  insertRows,
  newId,
  selectById,
} from '../src';
import { memoryDataSource } from './memory-data-source';

@Entity('sql_things')
class ThingRow {
  @IdColumn() id!: string;
  @RefColumn({ name: 'org_id' }) orgId!: string;
  @EnumColumn(['NEW', 'DONE']) status!: 'NEW' | 'DONE';
  @Column({ type: 'int' }) rank!: number;
  @BoolColumn() flagged!: boolean;
  @JsonColumn({ nullable: true }) details!: { tags: string[] } | null;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
  @DateTimeColumn({ name: 'done_at', nullable: true }) doneAt!: Date | null;
}

describe('entitySql on SQLite', () => {
  let dataSource: DataSource;

  before(async () => {
    dataSource = await memoryDataSource([ThingRow]);
  });

  after(() => dataSource.destroy());

  const thing = (fields: Partial<ThingRow> = {}): ThingRow => ({
    id: newId(),
    orgId: 'org',
    status: 'NEW',
    rank: 1,
    flagged: true,
    details: { tags: ['a', 'b'] },
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    doneAt: null,
    ...fields,
  });

  it('writes rows that TypeORM reads back unchanged, and reads them back as TypeORM does', async () => {
    const rows = [thing(), thing({ flagged: false, details: null, rank: 2 })];
    await insertRows(dataSource.manager, ThingRow, rows);
    const viaTypeOrm = await dataSource.getRepository(ThingRow).findBy(rows.map((r) => ({ id: r.id })));
    const sorted = (list: ThingRow[]) => [...list].sort((a, b) => a.rank - b.rank).map((r) => ({ ...r }));
    expect(sorted(viaTypeOrm)).to.deep.equal(sorted(rows));
    expect({ ...(await selectById(dataSource.manager, ThingRow, rows[0]?.id ?? '')) }).to.deep.equal(rows[0]);
    expect(await selectById(dataSource.manager, ThingRow, newId())).to.equal(null);
    expect(await existingIds(dataSource.manager, ThingRow, [rows[1]?.id ?? '', newId()])).to.deep.equal([rows[1]?.id]);
  });

  it('reads only the named columns, hydrated as TypeORM does, and sees what the open transaction wrote', async () => {
    const sql = entitySql(dataSource, ThingRow);
    const row = thing({ status: 'DONE', doneAt: new Date('2026-03-04T05:06:07.890Z') });
    const read = await dataSource.transaction(async (manager) => {
      await insertRows(manager, ThingRow, [row]);
      return sql.selectColumns(manager, ['status', 'doneAt', 'flagged'], `WHERE ${sql.column('id')} = ?`, [row.id]);
    });
    expect(read).to.deep.equal([{ status: 'DONE', doneAt: row.doneAt, flagged: true }]);
  });

  it('updates only the rows matching every condition and returns how many changed', async () => {
    const sql = entitySql(dataSource, ThingRow);
    await insertRows(dataSource.manager, ThingRow, [
      thing({ orgId: 'u' }),
      thing({ orgId: 'u', rank: 5 }),
      thing({ orgId: 'u' }),
    ]);
    const doneAt = new Date('2026-02-03T04:05:06.789Z');
    const rankAtMost = (rank: number) => ({ sql: `${sql.column('rank')} <= ?`, parameters: [rank] });
    const changed = await sql.update(
      dataSource.manager,
      { status: 'DONE', doneAt },
      { orgId: 'u', status: ['NEW'], doneAt: null },
      rankAtMost(1),
    );
    expect(changed).to.equal(2);
    const again = await sql.update(
      dataSource.manager,
      { status: 'DONE', doneAt },
      { orgId: 'u', status: ['NEW'], doneAt: null },
      rankAtMost(1),
    );
    expect(again).to.equal(0);
    const read = await sql.select(
      dataSource.manager,
      `WHERE ${sql.column('orgId')} = ? ORDER BY ${sql.column('rank')}`,
      ['u'],
    );
    expect(read.map((r) => [r.status, r.doneAt?.toISOString() ?? null])).to.deep.equal([
      ['DONE', doneAt.toISOString()],
      ['DONE', doneAt.toISOString()],
      ['NEW', null],
    ]);
  });
});
