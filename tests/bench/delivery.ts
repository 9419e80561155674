/**
 * `npm run bench:delivery`: messaging-platform throughput through the whole path, next to the fake platform alone, in
 * the same run (issue 16). A benchmark: nothing asserts time; it fails only when a message is lost or duplicated.
 *
 * - **outbound**: BENCH_MESSAGES agents' replies (`sendMessage` over GraphQL, BENCH_CONCURRENCY clients) spread over
 *   BENCH_CHANNELS CHAT_APP_B channels (Telegram Bot API shape; each adapter paces itself to 30 sends/s per channel,
 *   so fewer channels measure the rate limit, not the path): sendMessage → inbox → `message.created` → channels'
 *   consumer → sender → adapter → the fake. Timed from the first call to the last message at the fake; every message
 *   must arrive exactly once (counted at the fake by its text).
 * - **direct**: the same number of `sendMessage` posts straight to the fake with the same concurrency: what the fake
 *   and the machine allow.
 * - **inbound**: BENCH_MESSAGES signed webhooks (one user message each) to `/channels/in/<id>`, timed until every one is
 *   a stored inbox message (`platform_inbound_messages.message_id` set), each exactly once.
 *
 * The stack (SQLite, in-process bus, or MariaDB + Kafka with SVC_TEST_MYSQL_URL / SVC_TEST_KAFKA_BROKERS set), the
 * fake and the load generator share this process (the StackHarness of the e2e suite): the figures compare the rows
 * of one run, not absolute capacity. Results go in docs/performance.md.
 */
import { ApiScope, eventually, newId } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { PlatformInboundMessageRow } from '@svc/channels/dist/src/entities';
import { In, IsNull, Not } from 'typeorm';
import { FakeChatAppB, type FakeBot } from '../fakes/chat-app-b';
import { connectDirectly } from '../support/platform-channels';
import { StackHarness } from '../support/stack-harness';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 3_000);
const CHANNELS = Number(process.env.BENCH_CHANNELS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);

interface Row {
  name: string;
  count: number;
  seconds: number;
}

/** Runs `work(i)` for i in 0..count-1 on `concurrency` workers. */
async function pool(count: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
}

async function main(): Promise<void> {
  const fake = await new FakeChatAppB().start();
  const harness = new StackHarness({}, {}, { platformUrls: { CHAT_APP_B_API_URL: fake.url } });
  await harness.start();
  const rows: Row[] = [];
  try {
    const org = await harness.newOrg('Bench');
    const key = (await org.mintKey([ApiScope.MESSAGES_SEND, ApiScope.MESSAGES_READ])).key;
    const bots: FakeBot[] = [];
    const channelIds: string[] = [];
    for (let i = 0; i < CHANNELS; i += 1) {
      const bot = fake.addBot();
      bots.push(bot);
      channelIds.push(
        (await connectDirectly(harness, org.id, ChannelType.CHAT_APP_B, { botToken: bot.token })).channelId,
      );
    }
    const inbound = harness.stack.channels.dataSource.getRepository(PlatformInboundMessageRow);
    const stored = () => inbound.countBy({ channelId: In(channelIds), messageId: Not(IsNull()) });

    // One user per channel writes first (the chats replies go to), then the inbound row.
    const users = bots.map(() => fake.user());
    await pool(CHANNELS, CONCURRENCY, async (i) => {
      const bot = bots[i]!;
      await fake.deliverUpdate(bot, fake.textUpdate(bot, users[i]!, 'hello'));
    });
    await eventually(async () => (await stored()) >= CHANNELS, 60_000, 'the first messages stored');
    const chats = await chatsOf(harness, key, CHANNELS);

    // Outbound through the whole path.
    const run = `bench-${newId()}`;
    const arrived = () => bots.reduce((n, bot) => n + fake.calls(bot, 'sendMessage').length, 0);
    const before = arrived();
    let started = process.hrtime.bigint();
    await pool(MESSAGES, CONCURRENCY, async (i) => {
      const answer = await harness.graphql(
        'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
        { c: chats[i % chats.length], i: { text: `${run} #${i}` } },
        key,
      );
      if (answer.body.errors) throw new Error(JSON.stringify(answer.body.errors));
    });
    rows.push({ name: 'outbound: sendMessage answered', count: MESSAGES, seconds: since(started) });
    await eventually(async () => arrived() - before >= MESSAGES, 600_000, 'every reply at the fake');
    rows.push({ name: 'outbound: sendMessage → fake platform', count: MESSAGES, seconds: since(started) });
    const texts = new Map<string, number>();
    for (const bot of bots)
      for (const call of fake.calls(bot, 'sendMessage'))
        texts.set(String(call['text']), (texts.get(String(call['text'])) ?? 0) + 1);
    const duplicates = [...texts].filter(([text, n]) => text.startsWith(run) && n > 1).length;
    const missing = Array.from({ length: MESSAGES }, (_, i) => `${run} #${i}`).filter((t) => !texts.has(t)).length;
    if (duplicates || missing) throw new Error(`exactly-once broken: ${duplicates} duplicated, ${missing} missing`);

    // The same posts straight to the fake.
    started = process.hrtime.bigint();
    await pool(MESSAGES, CONCURRENCY, async (i) => {
      const bot = bots[i % bots.length]!;
      const response = await fetch(`${fake.url}/bot${bot.token}/sendMessage`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chat_id: users[i % users.length]!.id, text: `direct #${i}` }),
      });
      await response.arrayBuffer();
    });
    rows.push({ name: 'direct: HTTP posts to the fake platform', count: MESSAGES, seconds: since(started) });

    // Inbound webhooks to stored messages.
    const storedBefore = await stored();
    started = process.hrtime.bigint();
    await pool(MESSAGES, CONCURRENCY, async (i) => {
      const bot = bots[i % bots.length]!;
      const answer = await fake.deliverUpdate(bot, fake.textUpdate(bot, users[i % users.length]!, `${run} in #${i}`));
      if (answer.status !== 200) throw new Error(`webhook answered ${answer.status}`);
    });
    const accepted = since(started);
    await eventually(async () => (await stored()) - storedBefore >= MESSAGES, 600_000, 'every webhook stored');
    rows.push({ name: 'inbound: webhooks accepted (200)', count: MESSAGES, seconds: accepted });
    rows.push({ name: 'inbound: webhook → stored message', count: MESSAGES, seconds: since(started) });
    if ((await stored()) - storedBefore !== MESSAGES) throw new Error('an inbound message was stored twice');
  } finally {
    await harness.stop();
    await fake.stop();
  }
  console.log(
    `delivery bench: ${MESSAGES} messages, ${CHANNELS} channels, ${CONCURRENCY} clients, ` +
      `${process.env.SVC_TEST_KAFKA_BROKERS ? 'Kafka + MariaDB' : 'embedded (SQLite, in-process bus)'}`,
  );
  for (const row of rows)
    console.log(
      `  ${row.name.padEnd(44)} ${(row.count / row.seconds).toFixed(0).padStart(7)} /s  (${row.seconds.toFixed(2)} s)`,
    );
  console.log('  exactly once at the fake: yes');
}

function since(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The org's open chats, one per channel's user, through searchChats. */
async function chatsOf(harness: StackHarness, key: string, expected: number): Promise<string[]> {
  return eventually(
    async () => {
      const found = await harness.graphql<{ searchChats: { data: { _id: string }[] } }>(
        'query { searchChats(input: { limit: 100 }) { data { _id } } }',
        {},
        key,
      );
      const ids = found.body.data?.searchChats.data.map((c) => c._id) ?? [];
      return ids.length >= expected && ids;
    },
    30_000,
    'the chats',
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
