import { expect } from 'chai';
import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, type DataSource } from 'typeorm';
import {
  EmbeddedBus,
  OrgRowsErasure,
  OutboxEvent,
  OutboxRelay,
  ORG_ERASURE_PARTICIPANTS,
  checkOrgErasurePart,
  documentedOrgErasureServices,
  checkOrgRowsCoverage,
  createLogger,
  eventually,
  newId,
  orgErasureConfirmations,
  orgRowCounts,
  orgRowsPart,
  publishOrgEraseRequest,
  runOrgErasure,
  subscribeOrgErasure,
  testOrgErasure,
  type OrgErasurePart,
} from '../src';
import { memoryDataSource } from './memory-data-source';

// Declared parent first: deleting in declaration order would break the foreign keys below.
@Entity('org_test_boards')
class BoardRow {
  @PrimaryColumn('varchar', { length: 24 }) id!: string;
  @Column('varchar', { length: 24, name: 'org_id' }) orgId!: string;
}

@Entity('org_test_cards')
class CardRow {
  @PrimaryColumn('varchar', { length: 24 }) id!: string;
  @Column('varchar', { length: 24, name: 'org_id' }) orgId!: string;
  @Column('varchar', { length: 24, name: 'board_id' }) boardId!: string;
  @ManyToOne(() => BoardRow, { onDelete: 'NO ACTION' })
  @JoinColumn({ name: 'board_id' })
  board?: BoardRow;
}

/** No orgId: its rows belong to a card. */
@Entity('org_test_card_files')
class CardFileRow {
  @PrimaryColumn('varchar', { length: 24 }) id!: string;
  @Column('varchar', { length: 24, name: 'card_id' }) cardId!: string;
  @ManyToOne(() => CardRow, { onDelete: 'NO ACTION' })
  @JoinColumn({ name: 'card_id' })
  card?: CardRow;
}

/** No orgId: a child of a child. */
@Entity('org_test_file_pages')
class FilePageRow {
  @PrimaryColumn('varchar', { length: 24 }) id!: string;
  @Column('varchar', { length: 24, name: 'file_id' }) fileId!: string;
}

@Entity('org_test_usage')
class UsageRow {
  @PrimaryColumn('varchar', { length: 24 }) id!: string;
  @Column('varchar', { length: 24, name: 'org_id' }) orgId!: string;
}

@Entity('org_test_leases')
class LeaseRow {
  @PrimaryColumn('varchar', { length: 24 }) name!: string;
}

const ENTITIES = [BoardRow, CardRow, CardFileRow, FilePageRow, UsageRow, LeaseRow, OutboxEvent];

const rows = new OrgRowsErasure({
  children: [
    { target: CardFileRow, parent: CardRow, column: 'cardId' },
    { target: FilePageRow, parent: CardFileRow, column: 'fileId' },
  ],
  noOrgData: [LeaseRow],
  keep: [UsageRow],
  groups: { files: [CardFileRow, FilePageRow] },
});

const logger = createLogger('kit-test', 'silent');

describe('kit org erasure chassis (docs/erasure.md "Erasing an org")', () => {
  let dataSource: DataSource;
  const orgId = newId();
  const otherOrg = newId();

  /** Two boards with two cards each, a file per card and two pages per file, and a usage row. */
  const fill = async (org: string) => {
    const { manager } = dataSource;
    for (let b = 0; b < 2; b++) {
      const board = await manager.save(BoardRow, { id: newId(), orgId: org });
      for (let c = 0; c < 2; c++) {
        const card = await manager.save(CardRow, { id: newId(), orgId: org, boardId: board.id });
        const file = await manager.save(CardFileRow, { id: newId(), cardId: card.id });
        await manager.save(FilePageRow, [
          { id: newId(), fileId: file.id },
          { id: newId(), fileId: file.id },
        ]);
      }
    }
    await manager.save(UsageRow, { id: newId(), orgId: org });
  };

  beforeEach(async () => {
    dataSource = await memoryDataSource(ENTITIES);
    await dataSource.query('PRAGMA foreign_keys = ON');
    await fill(orgId);
    await fill(otherOrg);
  });

  afterEach(() => dataSource.destroy());

  it('docs/erasure.md lists every org erasure participant, in order', () => {
    expect(documentedOrgErasureServices()).to.deep.equal([...ORG_ERASURE_PARTICIPANTS]);
  });

  it("deletes the org's rows children first, counts every kind, keeps what is kept, and confirms zeros again", async () => {
    checkOrgRowsCoverage(dataSource, rows);
    const counts = await checkOrgErasurePart(dataSource, orgRowsPart('content', rows), testOrgErasure(orgId));
    expect(counts).to.deep.equal([
      { kind: 'files', count: 4 + 8 },
      { kind: 'org_test_boards', count: 2 },
      { kind: 'org_test_cards', count: 4 },
    ]);
    expect(await orgRowCounts(dataSource, orgId)).to.deep.equal({ org_test_usage: 1 });
    expect(await orgRowCounts(dataSource, otherOrg)).to.deep.equal({
      org_test_boards: 2,
      org_test_cards: 4,
      org_test_usage: 1,
    });
    expect(await dataSource.manager.count(CardFileRow)).to.equal(4);
    expect(await dataSource.manager.count(FilePageRow)).to.equal(8);
    // One confirmation per run, in the same transaction as the deletes.
    expect(await dataSource.manager.count(OutboxEvent)).to.equal(2);
  });

  it('refuses a data source with a table neither erased nor declared, in the test helper and at erasure time', async () => {
    const forgetful = new OrgRowsErasure({ children: [{ target: CardFileRow, parent: CardRow, column: 'cardId' }] });
    expect(() => checkOrgRowsCoverage(dataSource, forgetful)).to.throw(
      /does not cover org_test_file_pages, org_test_leases/,
    );
    const refused = await runOrgErasure(dataSource, orgRowsPart('content', forgetful), testOrgErasure(orgId)).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(refused).to.match(/neither erased nor declared: org_test_file_pages, org_test_leases/);
    expect(await orgRowCounts(dataSource, orgId)).to.include({ org_test_boards: 2 });
  });

  it('runs afterCommit only once the deletes committed, and not when the transaction fails', async () => {
    const ran: string[] = [];
    let fail = true;
    const part = orgRowsPart('content', rows, {
      beforeDelete: async () => {
        if (fail) throw new Error('killed mid-way');
        return async () => void ran.push('before');
      },
      afterCommit: async () => void ran.push('after'),
    });
    const erasure = testOrgErasure(orgId);
    const failed = await runOrgErasure(dataSource, part, erasure).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(failed).to.equal('killed mid-way');
    expect(ran).to.deep.equal([]);
    fail = false;
    await runOrgErasure(dataSource, part, erasure);
    expect(ran).to.deep.equal(['before', 'after']);
  });

  it('consumes org.erase_requested on the bus: a crash before the commit redelivers, then it confirms', async () => {
    const bus = new EmbeddedBus({ retry: { backoffMs: 1 } });
    await bus.start();
    const relay = new OutboxRelay(dataSource, bus, logger);
    relay.start();
    const confirmations = await orgErasureConfirmations().start(bus, '');
    const inner = orgRowsPart('content', rows);
    let crashes = 1;
    const part: OrgErasurePart = {
      service: 'content',
      erase: async (manager, erasure) => {
        const erased = await inner.erase(manager, erasure);
        if (crashes-- > 0) throw new Error('killed before the commit');
        return erased;
      },
    };
    try {
      const subscription = await subscribeOrgErasure(bus, dataSource, relay, part, '', logger);
      const erasure = testOrgErasure(orgId);
      await publishOrgEraseRequest(bus, '', erasure);
      const confirmed = await confirmations.waitFor(erasure.erasureId, 'content');
      expect(confirmed.orgId).to.equal(orgId);
      expect(confirmed.counts).to.deep.include({ kind: 'org_test_cards', count: 4 });
      expect(await orgRowCounts(dataSource, orgId)).to.deep.equal({ org_test_usage: 1 });
      await publishOrgEraseRequest(bus, '', erasure);
      await eventually(async () => confirmations.of(erasure.erasureId, 'content').length >= 2);
      expect(confirmations.of(erasure.erasureId, 'content')[1]?.counts.every((c) => c.count === 0)).to.equal(true);
      await subscription.stop();
    } finally {
      await confirmations.stop();
      await relay.stop();
      await bus.stop();
    }
  });
});
