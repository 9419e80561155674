/**
 * `npm run bench:search`: the inbox's searches on MariaDB at volume. Seeds 100k conversations (one thread each) and
 * 1M messages into the stack's inbox database with multi-row inserts (progress bar on stderr), each message's search
 * terms computed by the service's own tokeniser (`termsOf`, the rows `message_terms` gets on every write), then reports
 * p50/p95/p99 of searchConversations, apiSearchMessages and getMessages through the gateway next to the same SQL run
 * directly on MariaDB, in the same run. A benchmark, not a test: nothing asserts time, but it stops when a search
 * finds nothing or the term table disagrees with a scan (an index that matches nothing once made a ten-fold cost look
 * like speed: docs/decisions/0030-inbox-search.md).
 * Prints the machine's load average before and after, the buffer pool against the searched tables, and each SQL row's
 * plan (the index used per table, rows read, pages read from disk; ANALYZE FORMAT=JSON). Needs MariaDB
 * (tests/infra/up.sh): SVC_BENCH_MYSQL_URL, else SVC_TEST_MYSQL_URL. Sizes: BENCH_CONVERSATIONS,
 * BENCH_MESSAGES_PER_CHAT, BENCH_SAMPLES.
 */
import type { RowDataPacket } from 'mysql2';
import { createConnection, type Connection } from 'mysql2/promise';
import { newId, termsOf } from '@svc/kit';
import { gatewayCaller } from './gateway-client';
import { machineLoad } from './machine-load';
import { startStackProcess } from './stack-process';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const MESSAGES_PER_CHAT = Number(process.env.BENCH_MESSAGES_PER_CHAT ?? 10);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const ROWS_PER_INSERT = 2_000;
const DATABASE_PREFIX = 'svc_bench_search_';

/** A vocabulary with a Zipf-like spread, so queries range from rare to common words. */
const WORDS = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}x${(i * 7919).toString(36)}`);
const wordAt = (r: number) => WORDS[Math.min(WORDS.length - 1, Math.floor(WORDS.length * r ** 3))] as string;
const sentence = () => Array.from({ length: 8 }, () => wordAt(Math.random())).join(' ');

function progress(label: string, done: number, total: number): void {
  const width = 40;
  const filled = Math.round((done / total) * width);
  process.stderr.write(
    `\r${label.padEnd(14)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${done === total ? '\n' : ''}`,
  );
}

const sqlDate = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

async function insertRows(db: Connection, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  if (!rows.length) return;
  const placeholders = rows.map(() => `(${columns.map(() => '?').join(',')})`).join(',');
  await db.query(`INSERT INTO ${table} (${columns.join(',')}) VALUES ${placeholders}`, rows.flat());
}

async function seed(db: Connection, orgId: string): Promise<string[]> {
  // Building the term table's indexes once at the end is far faster than maintaining them row by row.
  await db.query('ALTER TABLE message_terms DROP PRIMARY KEY, DROP INDEX ix_message_terms_message');
  const start = Date.now() - 365 * 24 * 3600 * 1000;
  const step = (365 * 24 * 3600 * 1000) / CONVERSATIONS;
  const chatIds: string[] = [];
  let conversations: unknown[][] = [];
  let chats: unknown[][] = [];
  const messages: unknown[][] = [];
  const terms: unknown[][] = [];
  const flush = async (force: boolean) => {
    if (force || conversations.length >= ROWS_PER_INSERT) {
      await insertRows(
        db,
        'conversations',
        [
          'id',
          'org_id',
          'contact_id',
          'contact_name',
          'blocked',
          'ai_enabled',
          'created_at',
          'updated_at',
          'last_message_at',
        ],
        conversations,
      );
      await insertRows(
        db,
        'chats',
        [
          'id',
          'org_id',
          'channel_id',
          'contact_id',
          'contact_name',
          'status',
          'created_at',
          'updated_at',
          'last_message_at',
          'conversation_id',
          'priority',
        ],
        chats,
      );
      conversations = [];
      chats = [];
    }
    /** Full batches of `pending` (and the rest when forced), removed from it as they are written. */
    const drain = async (pending: unknown[][], table: string, columns: string[]) => {
      while (pending.length >= ROWS_PER_INSERT || (force && pending.length))
        await insertRows(db, table, columns, pending.splice(0, ROWS_PER_INSERT));
    };
    await drain(messages, 'messages', [
      'id',
      'org_id',
      'chat_id',
      'direction',
      'author_type',
      'author_id',
      'text',
      'internal',
      'delivery_status',
      'created_at',
      'conversation_id',
      'type',
    ]);
    await drain(terms, 'message_terms', [
      'org_id',
      'term',
      'created_at',
      'message_id',
      'chat_id',
      'conversation_id',
      'internal',
      'conversation_created_at',
    ]);
  };
  const channelId = newId();
  for (let i = 0; i < CONVERSATIONS; i += 1) {
    const at = start + i * step;
    const conversationId = newId(new Date(at));
    const chatId = newId(new Date(at));
    const contactId = newId(new Date(at));
    const last = sqlDate(at + MESSAGES_PER_CHAT * 60_000);
    conversations.push([conversationId, orgId, contactId, `Contact ${i}`, 0, 0, sqlDate(at), last, last]);
    chats.push([
      chatId,
      orgId,
      channelId,
      contactId,
      `Contact ${i}`,
      i % 3 ? 'OPEN' : 'CLOSED',
      sqlDate(at),
      last,
      last,
      conversationId,
      'NORMAL',
    ]);
    chatIds.push(chatId);
    for (let m = 0; m < MESSAGES_PER_CHAT; m += 1) {
      const inbound = m % 2 === 0;
      const messageId = newId(new Date(at + m * 60_000));
      const text = sentence();
      const internal = m === MESSAGES_PER_CHAT - 1 ? 1 : 0;
      for (const term of termsOf(text))
        terms.push([orgId, term, sqlDate(at + m * 60_000), messageId, chatId, conversationId, internal, sqlDate(at)]);
      messages.push([
        messageId,
        orgId,
        chatId,
        inbound ? 'INBOUND' : 'OUTBOUND',
        inbound ? 'CONTACT' : 'MEMBER',
        inbound ? contactId : newId(),
        text,
        internal,
        inbound ? 'NOT_APPLICABLE' : 'QUEUED',
        sqlDate(at + m * 60_000),
        conversationId,
        'TEXT',
      ]);
    }
    await flush(false);
    if (i % 1_000 === 0 || i === CONVERSATIONS - 1) progress('seeding', i + 1, CONVERSATIONS);
  }
  await flush(true);
  process.stderr.write('building the term table indexes…\n');
  await db.query(
    'ALTER TABLE message_terms ADD PRIMARY KEY (org_id, term, created_at, message_id),' +
      ' ADD INDEX ix_message_terms_message (message_id, term)',
  );
  await db.query('ANALYZE TABLE conversations, chats, messages, message_terms');
  await checkTermTable(db, WORDS[300] as string);
  return chatIds;
}

/**
 * The term table must find what a scan finds: a search that finds nothing is fast (decision 0030's FULLTEXT index
 * once matched nothing). The seeded words are lower-case letters and digits, so the term is the word itself.
 */
async function checkTermTable(db: Connection, word: string): Promise<void> {
  const [[indexed], [scanned]] = await Promise.all([
    db.query<RowDataPacket[]>('SELECT COUNT(DISTINCT message_id) AS n FROM message_terms WHERE term = ?', [word]),
    db.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM messages WHERE CONCAT(' ', text, ' ') LIKE ?`, [
      `% ${word} %`,
    ]),
  ]);
  const found = Number(indexed[0]?.n);
  const expected = Number(scanned[0]?.n);
  if (!expected || found !== expected)
    throw new Error(`the term table finds ${found} messages with "${word}", a scan ${expected}`);
}

interface PlanTable {
  table_name?: string;
  access_type?: string;
  key?: string;
  r_rows?: number;
  r_engine_stats?: { pages_accessed?: number; pages_read_count?: number };
}

/** Every table access of an ANALYZE FORMAT=JSON plan, in the order the plan lists them. */
function planTables(node: unknown, found: PlanTable[] = []): PlanTable[] {
  if (Array.isArray(node)) for (const item of node) planTables(item, found);
  else if (node && typeof node === 'object')
    for (const [name, value] of Object.entries(node)) {
      if (name === 'table') found.push(value as PlanTable);
      planTables(value, found);
    }
  return found;
}

/** One line per table: how MariaDB reached it, rows read, pages touched and pages read from disk. */
async function keyAccess(db: Connection, sql: string, parameters: unknown[]): Promise<string> {
  const [rows] = await db.query<RowDataPacket[]>(`ANALYZE FORMAT=JSON ${sql}`, parameters);
  const plan: unknown = JSON.parse(String(Object.values(rows[0] ?? {})[0]));
  return planTables(plan)
    .map(
      (t) =>
        `${t.table_name}: ${t.access_type}${t.key ? ` ${t.key}` : ''}, ${t.r_rows ?? 0} rows, ` +
        `${t.r_engine_stats?.pages_accessed ?? 0} pages (${t.r_engine_stats?.pages_read_count ?? 0} from disk)`,
    )
    .join('; ');
}

interface Stats {
  p50: number;
  p95: number;
  p99: number;
}

async function measure(label: string, call: (i: number) => Promise<unknown>): Promise<Stats> {
  for (let i = 0; i < 20; i += 1) await call(i);
  const latencies: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) {
    const t0 = process.hrtime.bigint();
    await call(i);
    latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (i % 20 === 0 || i === SAMPLES - 1) progress(label, i + 1, SAMPLES);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

async function main(): Promise<void> {
  const server = process.env.SVC_BENCH_MYSQL_URL ?? process.env.SVC_TEST_MYSQL_URL;
  if (!server) throw new Error('set SVC_BENCH_MYSQL_URL or SVC_TEST_MYSQL_URL (tests/infra/up.sh) to a MariaDB server');
  // tests/infra's server is MariaDB: the stack's services take `mariadb://` URLs there (kit's data-source: with the
  // `mysql` driver TypeORM writes MySQL 8's `FOR SHARE`, which MariaDB refuses), mysql2 here takes `mysql://`.
  const mysqlUrl = server.replace(/^mariadb:/, 'mysql:');
  const admin = await createConnection({ uri: mysqlUrl });
  const [existing] = await admin.query<RowDataPacket[]>(`SHOW DATABASES LIKE '${DATABASE_PREFIX}%'`);
  for (const row of existing) await admin.query(`DROP DATABASE \`${String(Object.values(row)[0])}\``);
  await admin.end();
  const template = new URL(mysqlUrl.replace(/^mysql:/, 'mariadb:'));
  template.pathname = `/${DATABASE_PREFIX}{service}`;
  const stack = await startStackProcess({
    SVC_DB_URL_TEMPLATE: decodeURI(template.toString()),
    GATEWAY_COST_BUDGET: '1000000000',
    GATEWAY_COST_REFILL_PER_SECOND: '1000000000',
  });
  const inboxUrl = new URL(mysqlUrl);
  inboxUrl.pathname = `/${DATABASE_PREFIX}inbox`;
  const db = await createConnection({ uri: inboxUrl.toString() });
  try {
    const [orgRows] = await db.query<RowDataPacket[]>('SELECT org_id FROM chats WHERE id = ?', [
      stack.demo.SVC_DEMO_CHAT_ID,
    ]);
    const orgId = String(orgRows[0]?.org_id);
    const t0 = Date.now();
    const chatIds = await seed(db, orgId);
    console.log(
      `seeded ${CONVERSATIONS} conversations and ${CONVERSATIONS * MESSAGES_PER_CHAT} messages in ${((Date.now() - t0) / 1000).toFixed(0)} s`,
    );
    const gql = gatewayCaller(stack.url, stack.demo.SVC_DEMO_API_KEY ?? '');
    // Words from the middle of the vocabulary: a few hundred to a few thousand matching messages each.
    const word = (i: number) => WORDS[200 + (i % 500)] as string;
    const chat = (i: number) => chatIds[(i * 7919) % chatIds.length] as string;
    // The statements the service runs (services/inbox/src/domain/search.ts and search-match.ts, kit keysetPage),
    // without the view queries. The demo key holds NOTES_WRITE, so notes are not filtered out. A word's range of the
    // term table: from the word to the word followed by U+10FFFF (every term it prefixes).
    const range = (i: number) => [word(i), `${word(i)}\u{10FFFF}`];
    const statements: Record<string, (i: number) => [string, unknown[]]> = {
      // Unfiltered, as the bench's calls: the page and its count from the term range alone (search.ts).
      'searchConversations · SQL (terms page, then its conversations)': (i) => [
        'SELECT st.org_id, st.conversation_id, st.conversation_created_at, MIN(st.term), MIN(st.created_at),' +
          ' MIN(st.message_id), COUNT(*) OVER () AS total FROM message_terms st' +
          ' WHERE st.org_id = ? AND st.conversation_id IS NOT NULL AND st.term >= ? AND st.term < ?' +
          ' GROUP BY st.org_id, st.conversation_created_at, st.conversation_id' +
          ' ORDER BY st.conversation_created_at DESC, st.conversation_id DESC LIMIT 21',
        [orgId, ...range(i)],
      ],
      'apiSearchMessages · SQL (terms page, then its messages)': (i) => [
        'SELECT t.org_id, t.created_at, t.message_id, MIN(t.term) AS term FROM message_terms t' +
          ' WHERE t.org_id = ? AND t.term >= ? AND t.term < ? GROUP BY t.org_id, t.created_at, t.message_id' +
          ' ORDER BY t.created_at DESC, t.message_id DESC LIMIT 31',
        [orgId, ...range(i)],
      ],
      'getMessages · SQL': (i) => [
        'SELECT * FROM messages m WHERE m.org_id = ? AND m.chat_id = ? ORDER BY m.created_at ASC, m.id ASC LIMIT 31',
        [orgId, chat(i)],
      ],
    };
    /** searchConversations loads only the page's conversations after reading the page from the term table. */
    const pageConversations = async (rows: RowDataPacket[]) => {
      const ids = rows.map((row) => String(row.conversation_id));
      await db.query(`SELECT * FROM conversations WHERE org_id = ? AND id IN (${ids.map(() => '?').join(',')})`, [
        orgId,
        ...ids,
      ]);
    };
    /** apiSearchMessages loads only the page's messages after reading the page from the term table. */
    const pageMessages = async (rows: RowDataPacket[]) => {
      const ids = rows.map((row) => String(row.message_id));
      await db.query(`SELECT * FROM messages WHERE org_id = ? AND id IN (${ids.map(() => '?').join(',')})`, [
        orgId,
        ...ids,
      ]);
    };
    const sqlRow = async (name: string, then?: (rows: RowDataPacket[]) => Promise<void>): Promise<[string, Stats]> => {
      const statement = statements[name] as (i: number) => [string, unknown[]];
      return [
        name,
        await measure(name, async (i) => {
          const [rows] = await db.query<RowDataPacket[]>(...statement(i));
          if (!rows.length) throw new Error(`${name} found nothing for call ${i}`);
          await then?.(rows);
        }),
      ];
    };
    const found = (field: string) => (result: Record<string, { data?: unknown[] }>) => {
      if (!result[field]?.data?.length) throw new Error(`${field} found nothing`);
    };
    const [[pool]] = await db.query<RowDataPacket[]>(
      `SELECT @@innodb_buffer_pool_size AS pool, (SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'messages') AS messages, (SELECT data_length + index_length FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'message_terms') AS terms, (SELECT table_rows FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'message_terms') AS termRows`,
    );
    const mb = (bytes: unknown) => `${Math.round(Number(bytes) / 2 ** 20)} MB`;
    console.log(
      `InnoDB buffer pool ${mb(pool?.pool)}, messages table with its indexes ${mb(pool?.messages)},` +
        ` message_terms ~${String(pool?.termRows)} rows with its indexes ${mb(pool?.terms)}`,
    );
    const loadBefore = machineLoad();
    const rows: [string, Stats][] = [];
    rows.push([
      'searchConversations · gateway',
      await measure('searchConv gw', (i) =>
        gql('query($q: String) { searchConversations(query: $q) { data { _id unreadCount } totalCount hasNext } }', {
          q: word(i),
        }).then(found('searchConversations')),
      ),
    ]);
    rows.push(await sqlRow('searchConversations · SQL (terms page, then its conversations)', pageConversations));
    rows.push([
      'apiSearchMessages · gateway',
      await measure('searchMsg gw', (i) =>
        gql('query($q: String!) { apiSearchMessages(query: $q) { data { _id text } hasNext } }', { q: word(i) }).then(
          found('apiSearchMessages'),
        ),
      ),
    ]);
    rows.push(await sqlRow('apiSearchMessages · SQL (terms page, then its messages)', pageMessages));
    rows.push([
      'getMessages · gateway',
      await measure('getMessages gw', (i) =>
        gql('query($c: String!) { getMessages(chatId: $c) { data { _id text } hasNext } }', { c: chat(i) }).then(
          found('getMessages'),
        ),
      ),
    ]);
    rows.push(await sqlRow('getMessages · SQL'));
    const loadAfter = machineLoad();
    console.log(`\n| ${SAMPLES} sequential calls each | p50 ms | p95 ms | p99 ms |\n| --- | ---: | ---: | ---: |`);
    for (const [name, s] of rows)
      console.log(`| ${name} | ${s.p50.toFixed(1)} | ${s.p95.toFixed(1)} | ${s.p99.toFixed(1)} |`);
    console.log(`\nload average: before ${loadBefore}, after ${loadAfter}`);
    console.log('\nplans (ANALYZE FORMAT=JSON, first call of each SQL row):');
    for (const [name, statement] of Object.entries(statements))
      console.log(`- ${name}: ${await keyAccess(db, ...statement(0))}`);
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
