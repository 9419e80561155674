import { expect } from 'chai';
import { In, IsNull } from 'typeorm';
import { ApiScope, apiKeyPrincipal, newId, systemPrincipal, unary, type Principal } from '@svc/kit';
import type { InboxServiceClient, MessagePage } from '@svc/proto/inbox/v1';
import type { SearchServiceClient } from '@svc/proto/inbox/v1/search';
import type { InboxApp } from '../src';
import { MessageRow, MessageTermRow } from '../src/entities';
import { backfillMessageTerms } from '../src/migrations/backfill-message-terms';
import { migrations as mysqlMigrations } from '../src/migrations/mysql';
import { migrations as sqliteMigrations } from '../src/migrations/sqlite';
import { SearchStack } from './search-stack';

const READ_SEND = [ApiScope.MESSAGES_READ, ApiScope.MESSAGES_SEND];

/**
 * The term table behind message search (docs/decisions/0053–0055): written with every text write, and searched with
 * the semantics decision 0030 documents, on SQLite and (under `npm run test:infra`) on MariaDB.
 */
describe('Search over message_terms', () => {
  const stack = new SearchStack();
  let app: InboxApp;
  let inbox: InboxServiceClient;
  let search: SearchServiceClient;
  const as = (principal: Principal) => stack.as(principal);

  before(async () => {
    await stack.start();
    ({ app, inbox, search } = stack);
  });

  after(async () => stack.stop());

  /** A fresh org with a key of `scopes` (MESSAGES_READ and MESSAGES_SEND unless told). */
  const newOrg = (scopes = READ_SEND) => {
    const orgId = newId();
    return { orgId, key: apiKeyPrincipal(orgId, scopes) };
  };
  const openChat = (orgId: string) =>
    unary(
      inbox.openChat.bind(inbox),
      { channelId: newId(), contact: { _id: newId(), name: 'Grace Hopper' } },
      as(systemPrincipal(orgId)),
    );
  const send = async (key: Principal, chatId: string, text: string, internal = false) =>
    (await unary(inbox.sendMessage.bind(inbox), { chatId, input: { text, internal } }, as(key)))._id;
  const messages = (key: Principal, query: string, input: { limit: number; cursor?: string; isBefore?: boolean }) =>
    unary(search.searchMessages.bind(search), { query, filter: undefined, input }, as(key));
  const found = async (key: Principal, query: string) =>
    (await messages(key, query, { limit: 100 })).data.map((m) => m._id);
  const termsIn = async (orgId: string) =>
    (await app.dataSource.getRepository(MessageTermRow).find({ where: { orgId } }))
      .map((row) => `${row.messageId} ${row.term} ${row.internal ? 'note' : 'visible'}`)
      .sort();

  describe('Search.index', () => {
    it('writes one row per distinct folded term with the message, its thread and its visibility', async () => {
      const { orgId, key } = newOrg([...READ_SEND, ApiScope.NOTES_WRITE]);
      const chat = await openChat(orgId);
      const id = await send(key, chat._id, 'Café CRÈME, café crème: an ok order');
      const note = await send(key, chat._id, 'Order memo', true);
      expect(await termsIn(orgId)).to.deep.equal(
        [
          `${id} cafe visible`,
          `${id} creme visible`,
          `${id} order visible`,
          `${note} memo note`,
          `${note} order note`,
        ].sort(),
      );
      const rows = await app.dataSource.getRepository(MessageTermRow).find({ where: { orgId, messageId: id } });
      const message = await app.dataSource.getRepository(MessageRow).findOneByOrFail({ id });
      for (const row of rows) {
        expect(row.chatId).to.equal(chat._id);
        expect(row.conversationId).to.equal(chat.conversationId);
        expect(row.createdAt.getTime()).to.equal(message.createdAt.getTime());
        expect(row.conversationCreatedAt).to.be.an.instanceOf(Date);
      }
    });

    it('replaces the rows when the text is edited and removes them when the message is soft-deleted', async () => {
      const { orgId, key } = newOrg();
      const chat = await openChat(orgId);
      const id = await send(key, chat._id, 'pineapple pizza');
      await unary(inbox.updateMessage.bind(inbox), { messageId: id, text: 'mango salad' }, as(key));
      expect(await termsIn(orgId)).to.deep.equal([`${id} mango visible`, `${id} salad visible`]);
      expect(await found(key, 'pineapple')).to.deep.equal([]);
      expect(await found(key, 'mango')).to.deep.equal([id]);
      await unary(inbox.deleteMessage.bind(inbox), { messageId: id }, as(key));
      expect(await termsIn(orgId)).to.deep.equal([]);
      expect(await found(key, 'mango')).to.deep.equal([]);
    });

    it('removes the rows of every message of a deleted conversation', async () => {
      const { orgId, key } = newOrg([...READ_SEND, ApiScope.CONVERSATIONS_DELETE]);
      const kept = await openChat(orgId);
      const doomed = await openChat(orgId);
      const keptId = await send(key, kept._id, 'quarterly report');
      await send(key, doomed._id, 'quarterly numbers');
      await unary(
        inbox.deleteConversation.bind(inbox),
        { conversationId: doomed.conversationId, removePeople: false },
        as(key),
      );
      expect(await termsIn(orgId)).to.deep.equal([`${keptId} quarterly visible`, `${keptId} report visible`]);
      expect(await found(key, 'quarterly')).to.deep.equal([keptId]);
    });
  });

  describe('Search semantics', () => {
    it('finds stop words, words joined by underscores, any case and any accents alike on both families', async () => {
      const { orgId, key } = newOrg();
      const chat = await openChat(orgId);
      const id = await send(key, chat._id, 'The order_number is ÜBER-fast, Señor');
      for (const query of ['the', 'number', 'order', 'uber FAST', 'über', 'senor', 'SEÑ'])
        expect(await found(key, query), query).to.deep.equal([id]);
      expect(await found(key, 'numbers')).to.deep.equal([]);
    });

    it('finds a word longer than 64 characters by a prefix and in full', async () => {
      const { orgId, key } = newOrg();
      const chat = await openChat(orgId);
      const long = 'pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(2);
      const id = await send(key, chat._id, `diagnosis: ${long}`);
      expect(await found(key, long.slice(0, 70))).to.deep.equal([id]);
      expect(await found(key, long)).to.deep.equal([id]);
      expect(await found(key, 'pneumono')).to.deep.equal([id]);
    });

    it('lists a message once when a prefix matches several of its words, and needs every word', async () => {
      const { orgId, key } = newOrg();
      const chat = await openChat(orgId);
      const both = await send(key, chat._id, 'invoice, invoices and invoiced refund');
      const one = await send(key, chat._id, 'an invoice');
      expect(await found(key, 'invo')).to.deep.equal([one, both]);
      expect(await found(key, 'invo refu')).to.deep.equal([both]);
      expect(await found(key, 'invoices invoiced')).to.deep.equal([both]);
    });

    it('pages across equal creation times without skipping or repeating, both ways', async () => {
      const { orgId, key } = newOrg();
      const chat = await openChat(orgId);
      const ids: string[] = [];
      for (let i = 0; i < 7; i += 1) ids.push(await send(key, chat._id, `tied batch ${i}`));
      // The same millisecond for all: only the id orders them.
      const at = new Date('2026-01-01T00:00:00.000Z');
      await app.dataSource.manager.update(MessageRow, { id: In(ids) }, { createdAt: at });
      await app.dataSource.manager.update(MessageTermRow, { messageId: In(ids) }, { createdAt: at });
      const forward: string[] = [];
      const pages: MessagePage[] = [];
      let page = await messages(key, 'tied', { limit: 2 });
      pages.push(page);
      forward.push(...page.data.map((m) => m._id));
      while (page.hasNext) {
        page = await messages(key, 'tied', { limit: 2, cursor: page.nextCursor });
        pages.push(page);
        forward.push(...page.data.map((m) => m._id));
      }
      expect(forward).to.deep.equal([...ids].sort().reverse());
      const backward: string[] = [];
      page = pages[pages.length - 1] as MessagePage;
      backward.unshift(...page.data.map((m) => m._id));
      while (page.hasPrevious) {
        page = await messages(key, 'tied', { limit: 2, cursor: page.previousCursor, isBefore: true });
        backward.unshift(...page.data.map((m) => m._id));
      }
      expect(backward).to.deep.equal(forward);
    });

    it('counts conversations in totalCount, and notes only with NOTES_WRITE', async () => {
      const { orgId, key } = newOrg([...READ_SEND, ApiScope.NOTES_WRITE]);
      const reader = apiKeyPrincipal(orgId, [ApiScope.MESSAGES_READ]);
      const [first, second, third] = [await openChat(orgId), await openChat(orgId), await openChat(orgId)];
      if (!first || !second || !third) throw new Error('three chats');
      await send(key, first._id, 'alpha one');
      await send(key, first._id, 'alpha two');
      await send(key, second._id, 'alpha in a note', true);
      await send(key, third._id, 'beta');
      const conversations = (principal: Principal) =>
        unary(
          search.searchConversations.bind(search),
          { query: 'alpha', filter: undefined, input: { limit: 1 } },
          as(principal),
        );
      const withoutNotes = await conversations(reader);
      expect(withoutNotes.totalCount).to.equal(1);
      expect(withoutNotes.data.map((c) => c._id)).to.deep.equal([first.conversationId]);
      expect((await conversations(key)).totalCount).to.equal(2);
      expect(await found(reader, 'alpha')).to.have.length(2);
      expect(await found(key, 'alpha')).to.have.length(3);
    });
    it('pages conversations from the term table alone exactly as through the conversations with a filter', async () => {
      const { orgId, key } = newOrg();
      const expected: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const chat = await openChat(orgId);
        await send(key, chat._id, `harvest moon ${i}`);
        await send(key, chat._id, `harvest again ${i}`);
        expected.unshift(chat.conversationId);
      }
      // `from` far in the past lets everything through, but takes the path that reads `conversations`.
      const walk = async (filter: { from?: string } | undefined) => {
        const seen: string[] = [];
        let cursor: string | undefined;
        let totalCount: number | undefined;
        for (;;) {
          const page = await unary(
            search.searchConversations.bind(search),
            { query: 'harv', filter, input: { limit: 2, cursor } },
            as(key),
          );
          totalCount ??= page.totalCount;
          seen.push(...page.data.map((c) => c._id));
          if (!page.hasNext) return { seen, totalCount };
          cursor = page.nextCursor;
        }
      };
      const byTerms = await walk(undefined);
      expect(byTerms).to.deep.equal({ seen: expected, totalCount: 5 });
      expect(await walk({ from: '2000-01-01T00:00:00Z' })).to.deep.equal(byTerms);
    });
  });

  describe('MessageTermsBackfill', () => {
    it('fills message_terms from the stored messages, skips soft-deleted ones and logs its progress', async () => {
      const { orgId, key } = newOrg();
      const chat = await openChat(orgId);
      await send(key, chat._id, 'stored before the term table');
      const gone = await send(key, chat._id, 'deleted words');
      await unary(inbox.deleteMessage.bind(inbox), { messageId: gone }, as(key));
      const written = await termsIn(orgId);
      const everyRow = await app.dataSource.getRepository(MessageTermRow).count();
      await app.dataSource.getRepository(MessageTermRow).clear();
      const log: string[] = [];
      const runner = app.dataSource.createQueryRunner();
      try {
        const visible = await app.dataSource.getRepository(MessageRow).countBy({ deletedAt: IsNull() });
        expect(await backfillMessageTerms(runner, (line) => log.push(line))).to.equal(visible);
      } finally {
        await runner.release();
      }
      expect(await termsIn(orgId)).to.deep.equal(written);
      expect(await app.dataSource.getRepository(MessageTermRow).count()).to.equal(everyRow);
      expect(log.at(-1)).to.match(/^inbox: message_terms backfill: (\d+)\/\1 messages$/);
    });

    it('runs after the generated migration that creates the table, in both families', () => {
      for (const list of [sqliteMigrations, mysqlMigrations]) {
        const names = list.map((migration) => migration.name);
        const backfill = names.findIndex((name) => name.startsWith('MessageTermsBackfill'));
        const table = names.findIndex((name) => name.startsWith('MessageTerms1'));
        expect(table).to.be.greaterThan(-1);
        expect(backfill).to.be.greaterThan(table);
      }
    });
  });
});
