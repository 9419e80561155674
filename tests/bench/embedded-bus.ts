/**
 * `npm run bench:bus`: the embedded bus's CPU per delivered record on its durable log (a SQLite file, as the stack's
 * `<SVC_DATA_DIR>/bus.sqlite`), deleting what every group committed at each commit (before decision 0095) next to
 * deleting it once a second (the default since), measured in turns in the same process.
 *
 * The shape is the embedded stack's write path: one record published at a time (the outbox relay publishes each
 * committed message), waited for until every group handled and committed it (a sequential `sendMessage` caller),
 * each group reading three topics of which one gets the records (widget-api's realtime feed reads
 * svc.inbox.messages.v1, svc.inbox.chats.v1 and svc.channels.channels.v1). Prints CPU µs per record (user + system
 * of this process, which runs nothing else) and wall µs per record of each variant, their ratio, and the machine's
 * load average before and after. A benchmark, not a test: nothing asserts a figure.
 *
 * BENCH_RECORDS (per variant, default 6000, after 300 warm-up), BENCH_GROUPS (groups on the topic, default 1:
 * svc.inbox.messages.v1 has one, the feed), BENCH_BLOCK (records per turn, default 200).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedBus } from '@svc/kit';
import { machineLoad } from './machine-load';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 6000);
const WARMUP = 300;
const GROUPS = Number(process.env.BENCH_GROUPS ?? 1);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 200);
const TOPICS = ['bench.messages', 'bench.chats', 'bench.channels'];

interface Variant {
  name: string;
  trimEveryMs: number | undefined;
}
const BEFORE: Variant = { name: 'trim at each commit (trimEveryMs 0)', trimEveryMs: 0 };
const NOW: Variant = { name: 'trim once a second (default)', trimEveryMs: undefined };

interface Bench {
  variant: Variant;
  publishOne(): Promise<void>;
  stop(): Promise<void>;
  cpuUs: number;
  wallUs: number;
  records: number;
}

/** A bus on a file of its own with GROUPS groups, and a way to publish one record and wait until every group has it. */
async function open(variant: Variant): Promise<Bench> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-bus-'));
  const bus = new EmbeddedBus({
    file: path.join(dir, 'bus.sqlite'),
    ...(variant.trimEveryMs === undefined ? {} : { trimEveryMs: variant.trimEveryMs }),
  });
  await bus.start();
  let handled = 0;
  let published = 0;
  let caughtUp: (() => void) | undefined;
  for (let g = 0; g < GROUPS; g += 1) {
    await bus.subscribe({
      groupId: `bench-group-${g}`,
      topics: TOPICS,
      handle: async () => {
        handled += 1;
        if (handled === published * GROUPS) caughtUp?.();
      },
    });
  }
  const value = Buffer.alloc(300, 1);
  return {
    variant,
    cpuUs: 0,
    wallUs: 0,
    records: 0,
    async publishOne() {
      const n = published++;
      const done = new Promise<void>((resolve) => (caughtUp = resolve));
      await bus.publish([{ topic: TOPICS[0] ?? '', key: `chat-${n % 50}`, value, headers: { 'event-id': `e${n}` } }]);
      await done;
    },
    async stop() {
      await bus.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Publishes `count` records one at a time on one bus, adding this process's CPU and the wall time to its totals. */
async function block(bench: Bench, count: number): Promise<number> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let n = 0; n < count; n += 1) await bench.publishOne();
  const used = process.cpuUsage(cpu);
  bench.wallUs += Number(process.hrtime.bigint() - started) / 1e3;
  bench.cpuUs += used.user + used.system;
  bench.records += count;
  return (used.user + used.system) / count;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

async function main(): Promise<void> {
  console.log(`load average before: ${machineLoad()}`);
  console.log(
    `${RECORDS} records per variant after ${WARMUP} warm-up, one at a time, ${GROUPS} group(s) of ${TOPICS.length} topics each; ` +
      `the two buses take turns in blocks of ${BLOCK}, so a neighbour's burst hits both`,
  );
  const before = await open(BEFORE);
  const now = await open(NOW);
  try {
    for (const bench of [before, now]) for (let n = 0; n < WARMUP; n += 1) await bench.publishOne();
    const ratios: number[] = [];
    for (let turn = 0; turn * BLOCK < RECORDS; turn += 1) {
      // Alternate which goes first.
      const order = turn % 2 ? [now, before] : [before, now];
      const cpu = new Map<Bench, number>();
      for (const bench of order) cpu.set(bench, await block(bench, BLOCK));
      ratios.push((cpu.get(now) ?? NaN) / (cpu.get(before) ?? NaN));
    }
    for (const bench of [before, now]) {
      console.log(
        `${bench.variant.name.padEnd(38)} CPU ${(bench.cpuUs / bench.records).toFixed(1).padStart(7)} µs/record   wall ${(bench.wallUs / bench.records).toFixed(1).padStart(7)} µs/record`,
      );
    }
    console.log(
      `ratio default / trim at each commit: CPU ${(now.cpuUs / before.cpuUs).toFixed(2)} (median of ${ratios.length} blocks ${median(ratios).toFixed(2)})   wall ${(now.wallUs / before.wallUs).toFixed(2)}`,
    );
  } finally {
    await before.stop();
    await now.stop();
  }
  console.log(`load average after: ${machineLoad()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
