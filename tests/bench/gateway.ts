/**
 * `npm run bench`: operations through the public gateway (HTTP, Hive Gateway's pipeline and plugins, the public
 * execution, the route's gRPC call) next to the same call, with the same metadata, made straight to the inbox gRPC
 * service, in the same run, sequentially and with 10 concurrent callers:
 * - `sendMessage` (a write: one message, its selection `_id deliveryStatus`);
 * - `getMessages` (a read: a page of 30 messages of a seeded chat, with the fields a message list shows), and the direct
 *   call once more with the response field mask the gateway sends for that selection (docs/decisions/0290), so what
 *   the mask saves the service is told apart from what the gateway costs;
 * - `floor` (`{ __typename }` through the gateway next to `GET /healthz` on the same server: what HTTP, Yoga and Hive
 *   Gateway cost a request before any execution or service call, against a bare Node HTTP answer).
 * The kinds of a row (direct, gateway, direct with the mask) run in alternating blocks, so each ratio compares calls made
 * under the same machine state. Prints req/s, p50, p99, the stack process's CPU time per request, how often its main
 * thread went to sleep per request (each sleep is a cold wake for the next work), and the gateway/direct
 * throughput ratio over the whole row, the median and range of that ratio per block, and the machine's load average
 * before and after. A benchmark, not a test: nothing asserts time.
 *
 * BENCH_GATEWAY=process runs the gateway as it is deployed, its own process (mesh/dist/src/main.js, tests/bench/gateway-process.ts)
 * in front of the stack's services, with Kafka for its bus (tests/infra/up.sh; SVC_BENCH_KAFKA_BROKERS or
 * SVC_TEST_KAFKA_BROKERS); server CPU is then both processes'. BENCH_REQUESTS (per kind of a row, default 2000), BENCH_BLOCKS (blocks they alternate in, default 10), BENCH_PROCESS_WARMUP (calls of each kind before the first row, default 1000), BENCH_ROWS (comma-separated subset of `sendMessage`, `getMessages`),
 * BENCH_CONCURRENCY (comma-separated, default `1,10`), BENCH_CPU_PROF=<dir> (write a V8 CPU profile of the stack
 * process there), BENCH_NODE_ENV (the stack's NODE_ENV, default `production` as every deployed image runs: graphql-js
 * then skips its development checks; `development` is what `npm start` runs).
 */
import { randomUUID } from 'node:crypto';
import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { responseFieldMask } from '@svc/gateway';
import { FIELD_MASK_HEADER, REQUEST_ID_HEADER, callerMetadata, grpcClient, systemPrincipal, unary } from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { bareGet, gatewayCaller } from './gateway-client';
import { machineLoad } from './machine-load';
import { startGatewayProcess } from './gateway-process';
import { cpuMs, mainThreadSleeps, startStackProcess } from './stack-process';

const WARMUP = 200;
/**
 * Calls of each kind of every row before the first measured row: a young process runs its first thousands of requests
 * slower (lazy compilation, optimisation, the heap growing), and without this the rows measured first (sendMessage,
 * gateway and direct alike) paid for it: sendMessage sequential measured 0.51–0.54 first and 0.67 after getMessages in
 * the same build (docs/performance.md, issue 12's seventh pass).
 */
const PROCESS_WARMUP = Number(process.env.BENCH_PROCESS_WARMUP ?? 1000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
/** Blocks each row's kinds alternate in (measureRow). */
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 10);
/** Pause before each block (ms), for the stack's background work to finish. */
const SETTLE_MS = 50;
const ROWS = process.env.BENCH_ROWS?.split(',') ?? ['sendMessage', 'getMessages', 'floor'];
const CONCURRENCY = (process.env.BENCH_CONCURRENCY ?? '1,10').split(',').map(Number);
const PAGE = 30;
const NODE_ENV = process.env.BENCH_NODE_ENV ?? 'production';

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  /** The stack process's CPU time per request during the row (ms), when /proc is available. */
  serverCpuMs?: number;
  /**
   * This process's CPU time per request (ms): for a direct row, what the gRPC client costs a caller (the gateway pays
   * it too, in the server, for each of its calls); for a gateway row, the HTTP client's.
   */
  clientCpuMs: number;
  /** How often the servers' main threads went to sleep, per request (`mainThreadSleeps`), when /proc is available. */
  serverSleeps?: number;
}

function kafkaBrokersForGatewayProcess(): string {
  const brokers = process.env.SVC_BENCH_KAFKA_BROKERS ?? process.env.SVC_TEST_KAFKA_BROKERS;
  if (!brokers) throw new Error('BENCH_GATEWAY=process needs Kafka: run tests/infra/up.sh and source its infra.env');
  return brokers;
}

/** A per-process counter summed over the server processes, when /proc is available. */
function summed(pids: number[], counter: (pid: number) => number | undefined): number | undefined {
  const each = pids.map(counter);
  return each.some((n) => n === undefined) ? undefined : each.reduce<number>((sum, n) => sum + (n ?? 0), 0);
}

/** How far a server counter moved between two readings, when both were available. */
function moved(before: number | undefined, after: number | undefined): number | undefined {
  return before === undefined || after === undefined ? undefined : after - before;
}

/** One kind of call of a row: its printed name and the call. */
interface CallKind {
  name: string;
  call: () => Promise<unknown>;
}

/** What one kind of a row took in one block. */
interface Block {
  requests: number;
  seconds: number;
  cpuMs: number | undefined;
  sleeps: number | undefined;
  clientCpuMs: number;
}

/** `concurrency` callers making `requests` calls between them; the latencies go to `latencies`. */
async function runBlock(
  serverPids: number[],
  concurrency: number,
  requests: number,
  call: () => Promise<unknown>,
  latencies: number[],
): Promise<Block> {
  let next = 0;
  const cpuBefore = summed(serverPids, cpuMs);
  const sleepsBefore = summed(serverPids, mainThreadSleeps);
  const clientBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next += 1;
        const t0 = process.hrtime.bigint();
        await call();
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const client = process.cpuUsage(clientBefore);
  const cpuAfter = summed(serverPids, cpuMs);
  const sleepsAfter = summed(serverPids, mainThreadSleeps);
  return {
    clientCpuMs: (client.user + client.system) / 1000,
    requests,
    seconds,
    cpuMs: moved(cpuBefore, cpuAfter),
    sleeps: moved(sleepsBefore, sleepsAfter),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/**
 * Measures the kinds of a row in alternating blocks (BENCH_BLOCKS of REQUESTS / BENCH_BLOCKS calls each, the order
 * reversed every other block), so the baseline and the gateway share the machine's state: on a machine whose speed
 * drifts between seconds (a neighbour's load, frequency), rows measured one after the other compared two different
 * machines (docs/performance.md, issue 12's eighth pass). Between blocks the stack settles, so the events a block's
 * calls left to the bus's consumers are not counted in the next block's CPU.
 */
async function measureRow(kinds: CallKind[], serverPids: number[], concurrency: number) {
  const runs = kinds.map((kind) => ({ kind, latencies: [] as number[], blocks: [] as Block[] }));
  for (const { kind } of runs) for (let i = 0; i < WARMUP; i += 1) await kind.call();
  const perBlock = Math.max(1, Math.round(REQUESTS / BLOCKS));
  for (let b = 0; b < BLOCKS; b += 1) {
    for (const run of b % 2 ? [...runs].reverse() : runs) {
      await settle();
      run.blocks.push(await runBlock(serverPids, concurrency, perBlock, run.kind.call, run.latencies));
    }
  }
  const results = runs.map(({ kind, latencies, blocks }): Result => {
    const sorted = latencies.sort((x, y) => x - y);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    const total = (of: (block: Block) => number) => blocks.reduce((sum, block) => sum + of(block), 0);
    const requests = total((block) => block.requests);
    /** A server counter's total over the blocks, when every block has it. */
    const serverTotal = (of: (block: Block) => number | undefined) =>
      blocks.every((block) => of(block) !== undefined) ? total((block) => of(block) ?? 0) : undefined;
    const serverCpu = serverTotal((block) => block.cpuMs);
    const serverSleeps = serverTotal((block) => block.sleeps);
    return {
      name: kind.name,
      rps: requests / total((block) => block.seconds),
      p50: at(0.5),
      p99: at(0.99),
      serverCpuMs: serverCpu === undefined ? undefined : serverCpu / requests,
      clientCpuMs: total((block) => block.clientCpuMs) / requests,
      serverSleeps: serverSleeps === undefined ? undefined : serverSleeps / requests,
    };
  });
  const rate = (block: Block) => block.requests / block.seconds;
  /** Per block, kind `i`'s throughput over kind `of`'s: the spread says how far one run's ratio can be trusted. */
  const blockRatios = (i: number, of: number) =>
    (runs[i]?.blocks ?? []).map((block, b) => {
      const base = runs[of]?.blocks[b];
      return base ? rate(block) / rate(base) : Number.NaN;
    });
  return { results, blockRatios };
}

function spread(ratios: number[]): string {
  const sorted = [...ratios].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  return `median ${median.toFixed(2)} (${sorted[0]?.toFixed(2)}–${sorted.at(-1)?.toFixed(2)}, ${sorted.length} blocks)`;
}

/** The field mask the gateway sends for an operation's (only) root field. */
function maskOf(query: string): string {
  const document = parse(query);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const root = operation?.selectionSet.selections.filter((s): s is FieldNode => s.kind === Kind.FIELD) ?? [];
  const fragments = document.definitions.filter(
    (d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION,
  );
  const mask = responseFieldMask(root, Object.fromEntries(fragments.map((f) => [f.name.value, f])));
  if (mask === undefined) throw new Error(`no field mask for ${query}`);
  return mask;
}

function print(results: Result[], baseline: Result): void {
  for (const r of results) {
    console.log(
      `${r.name.padEnd(38)} ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   server CPU ${r.serverCpuMs?.toFixed(2).padStart(5) ?? '  n/a'} ms/req   client CPU ${r.clientCpuMs.toFixed(2).padStart(5)} ms/req   server sleeps ${r.serverSleeps?.toFixed(2).padStart(5) ?? '  n/a'}/req   ratio vs baseline ${(r.rps / baseline.rps).toFixed(2)}`,
    );
  }
}

async function main(): Promise<void> {
  console.log(`load average before: ${machineLoad()}`);
  const profileDir = process.env.BENCH_CPU_PROF;
  // In production, startStackProcess gives the stack throwaway keys for its secrets at rest.
  const stack = await startStackProcess(
    { NODE_ENV },
    profileDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir] } : {},
  );
  try {
    const key = stack.demo.SVC_DEMO_API_KEY ?? '';
    const chatId = stack.demo.SVC_DEMO_CHAT_ID ?? '';
    // BENCH_GATEWAY=process: the gateway as deployed, its own process in front of the stack's services.
    const gatewayProcess =
      process.env.BENCH_GATEWAY === 'process'
        ? await startGatewayProcess(stack.grpc, kafkaBrokersForGatewayProcess(), NODE_ENV)
        : undefined;
    const serverPids = gatewayProcess ? [stack.pid, gatewayProcess.pid] : [stack.pid];
    const postGateway = gatewayCaller(gatewayProcess?.url ?? stack.url, key, 16);
    const viaGateway = (query: string) => () => postGateway(query, { c: chatId });
    // The direct baseline carries the same principal the gateway would send, authenticated once.
    const identity = grpcClient(IdentityServiceClient, `127.0.0.1:${stack.grpc.identity}`);
    const principal = await unary(
      identity.authenticate.bind(identity),
      { credential: key, actAsOrgId: '' },
      callerMetadata(systemPrincipal(), 'identity'),
    );
    const inbox = grpcClient(InboxServiceClient, `127.0.0.1:${stack.grpc.inbox}`);
    // The metadata the gateway's call carries (mesh/src/route-calls.ts): the principal and an x-request-id, so the
    // service does the same work for both rows (its request context, decision 0069) and Node's promise hooks, which
    // that context turns on for the whole process, are on from the first row instead of from the first gateway call.
    const requestId = randomUUID();
    const readQuery = `query($c: String!) { getMessages(chatId: $c, input: { limit: ${PAGE} }) { data { _id chatId direction authorType authorId text type deliveryStatus createdAt } nextCursor hasNext } }`;
    const readMask = maskOf(readQuery);
    const signed = async () => {
      const plain = await callerMetadata(principal, 'inbox');
      plain.set(REQUEST_ID_HEADER, requestId);
      const masked = plain.clone();
      masked.set(FIELD_MASK_HEADER, readMask);
      return { plain, masked };
    };
    let metadata = await signed();
    // The principal token lives 60 s (decision 0067) and a run outlasts it; the gateway re-signs its own the same way.
    const resign = setInterval(() => void signed().then((fresh) => (metadata = fresh)), 20_000);
    const send = () =>
      unary(inbox.sendMessage.bind(inbox), { chatId, input: { text: 'bench', internal: false } }, metadata.plain);
    const read = (masked = false) =>
      unary(
        inbox.getMessages.bind(inbox),
        { chatId, input: { limit: PAGE } },
        masked ? metadata.masked : metadata.plain,
      );
    // A full page to read, whichever rows run.
    for (let i = 0; i < PAGE; i += 1) await send();
    if ((await read()).data.length !== PAGE) throw new Error(`the seeded chat has no page of ${PAGE}`);
    const bareHttp = bareGet(`${stack.url}/healthz`);
    const operations: Record<
      string,
      {
        direct: () => Promise<unknown>;
        gateway: () => Promise<unknown>;
        baseline?: string;
        /** The direct call with the gateway's field mask for the row's selection. */
        directMasked?: () => Promise<unknown>;
      }
    > = {
      sendMessage: {
        direct: async () => void (await send()),
        gateway: viaGateway(
          'mutation($c: String!) { sendMessage(chatId: $c, input: { text: "bench" }) { _id deliveryStatus } }',
        ),
      },
      getMessages: {
        direct: async () => void (await read()),
        gateway: viaGateway(readQuery),
        directMasked: async () => void (await read(true)),
      },
      floor: { direct: bareHttp, gateway: viaGateway('{ __typename }'), baseline: 'GET /healthz' },
    };
    console.log(
      `${REQUESTS} requests per row after ${WARMUP} warm-up, and ${PROCESS_WARMUP} of each kind of every row before the first; server: npm start's stack in its own process (SQLite, embedded bus)${gatewayProcess ? ', the gateway in another (mesh/dist/src/main.js, Kafka bus); server CPU is both' : ''}, NODE_ENV=${NODE_ENV}`,
    );
    const rows = ROWS.map((name) => {
      const operation = operations[name];
      if (!operation) throw new Error(`unknown row ${name}; rows: ${Object.keys(operations).join(', ')}`);
      /** The row's kinds, in the order measureRow's ratios index them: baseline, gateway, direct with the mask. */
      const kindsAt = (concurrency: number): CallKind[] => [
        { name: `${name} ${operation.baseline ?? 'direct gRPC'} (c=${concurrency})`, call: operation.direct },
        { name: `${name} gateway (c=${concurrency})`, call: operation.gateway },
        ...(operation.directMasked
          ? [{ name: `${name} direct gRPC + mask (c=${concurrency})`, call: operation.directMasked }]
          : []),
      ];
      return { operation, kindsAt };
    });
    for (const { kindsAt } of rows)
      for (let i = 0; i < PROCESS_WARMUP; i += 1) for (const kind of kindsAt(1)) await kind.call();
    for (const { operation, kindsAt } of rows) {
      for (const concurrency of CONCURRENCY) {
        const { results, blockRatios } = await measureRow(kindsAt(concurrency), serverPids, concurrency);
        const [baseline] = results;
        if (baseline) print(results, baseline);
        console.log(
          `${''.padEnd(38)} per block, gateway vs ${operation.baseline ?? 'direct gRPC'}: ${spread(blockRatios(1, 0))}`,
        );
        if (operation.directMasked)
          console.log(`${''.padEnd(38)} per block, gateway vs direct with the same mask: ${spread(blockRatios(1, 2))}`);
      }
    }
    clearInterval(resign);
    await gatewayProcess?.stop();
    identity.close();
    inbox.close();
  } finally {
    await stack.stop();
  }
  console.log(`load average after: ${machineLoad()}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
