import { expect } from 'chai';
import { newId } from '@svc/kit';
import { ChatStatus } from '@svc/proto/inbox/v1';
import { ChatRow, VisitorEventRow } from '../src/entities';
import { recordVisitorEvent } from '../src/domain/visitor-log';
import { statementLoggingDatabase } from './statement-log';

/**
 * Every visible message records a visitor event (docs/decisions/0080): its INSERT must be one statement text, so
 * SQLite prepares it once. With the seq written into the text, each event was a new statement, prepared anew and
 * evicting the hot ones from the driver's statement cache (docs/performance.md, "Write path").
 */
describe('inbox visitor event log statements', () => {
  it('records each event with the same INSERT text, the seq as a parameter', async () => {
    const inserts: { sql: string; parameters: unknown[] }[] = [];
    const db = statementLoggingDatabase((sql, parameters) => {
      if (/insert into "visitor_events"/i.test(sql)) inserts.push({ sql, parameters });
    });
    await db.initialize();
    try {
      const now = new Date();
      const chat = Object.assign(new ChatRow(), {
        id: newId(),
        orgId: newId(),
        channelId: newId(),
        contactId: newId(),
        status: ChatStatus.OPEN,
        createdAt: now,
        updatedAt: now,
      });
      await db.getRepository(ChatRow).insert(chat);
      const seqs: number[] = [];
      for (let i = 0; i < 3; i += 1)
        seqs.push(await db.transaction((m) => recordVisitorEvent(m, chat, 'message.created', newId(), now)));

      expect(seqs).to.deep.equal([1, 2, 3]);
      expect((await db.getRepository(VisitorEventRow).find({ order: { seq: 'ASC' } })).map((e) => e.seq)).to.deep.equal(
        [1, 2, 3],
      );
      expect(inserts).to.have.length(3);
      expect(new Set(inserts.map((i) => i.sql)).size, inserts.map((i) => i.sql).join('\n')).to.equal(1);
      expect(inserts.map((i) => i.parameters.filter((p) => typeof p === 'number'))).to.deep.equal([[1], [2], [3]]);
    } finally {
      await db.destroy();
    }
  });
});
