/**
 * `npm run bench:realtime`: how many SSE streams one widget-api process holds, what an idle one costs in memory, and
 * how long an agent's message takes to reach every open tab of its chat. A benchmark: nothing asserts a figure; the
 * issue's targets (10 000 streams held, fan-out p99 ≤ 200 ms, ≤ 20 KB per idle stream) are printed met / not met.
 *
 * Topology (docs/decisions/0090): by default the embedded stack (`npm start`'s entry point: every service, the gateway
 * and widget-api in ONE process, SQLite, the in-process bus) runs as a child process; it is the widget-api process
 * measured, and the fan-out latency is the whole path an agent's message takes in it: GraphQL `sendMessage` through the
 * gateway, the inbox's write and outbox, the bus, widget-api's `ListVisitorEvents` and the write to each stream. With
 * `BENCH_KAFKA_BROKERS` (e.g. tests/infra's `127.0.0.1:39092`), widget-api's own deployable runs in a child process of
 * its own on Kafka, calling the stack (on the same brokers) over gRPC, as a replica runs: only it is measured. Memory is
 * read after a full GC (`--expose-gc`, asked over an IPC channel) before and after the streams open; nothing else runs
 * meanwhile, so the difference is what the open streams cost widget-api. The baseline, measured in the same run before
 * widget-api's streams open: the same number of idle event streams held open by a bare `node:http` server
 * (`bare-server.ts` with `sse`) in its own process. This process is the only client: one `http.Agent` without a socket
 * limit, every stream a plain `http.get`, frames split on blank lines and matched, not parsed.
 *
 * Visitors are real: `BENCH_CHATS` anonymous handshakes (`POST /api/web/visitor/start-anonymous` on the demo web
 * integration), each a chat; the streams (`GET /api/web/realtime/:chatId` with the visitor's session token) are spread
 * evenly over them, several per chat as a visitor's tabs are. Then the demo API key sends `BENCH_ROUNDS` messages into
 * every chat through GraphQL `sendMessage`, at `BENCH_SEND_RATE` messages per second (open loop: a send never waits for
 * the one before, as agents do not), each message's text naming its send; the latency of a delivery is from the start of
 * its send call to the moment its `message.created` frame arrives on a stream, over every stream of the chat.
 *
 * The file-descriptor limit of this process and both servers is raised to `BENCH_FILE_LIMIT` (65 536) with prlimit;
 * raising a hard limit needs CAP_SYS_RESOURCE (a container's root may lack it), else each process keeps soft = hard
 * (node raises its soft limit to the hard one at start), which the report prints: 10 000 streams need ~10 100.
 *
 * BENCH_STREAMS (default 10 000), BENCH_CHATS (default min(1 000, streams / 10)), BENCH_ROUNDS (messages per chat,
 * default 1), BENCH_SEND_RATE (messages per second, default 20), BENCH_OPEN_CONCURRENCY (streams being opened at once,
 * default 100), BENCH_WARMUP_STREAMS (opened and closed before the memory is measured, default 100),
 * BENCH_SETTLE_MS (idle time before the memory is read, default 2 000), BENCH_FILE_LIMIT (default 65 536),
 * BENCH_CPU_PROF=<dir> (write a V8 CPU profile of the measured widget-api process there), BENCH_KAFKA_BROKERS (above).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchMemory } from '@svc/stack';
import { startBareServerProcess } from './bare-server';
import { machineLoad } from './machine-load';
import { cpuMs, startStackProcess } from './stack-process';
import { startWidgetApiProcess, type WidgetApiProcess } from './widget-process';

const STREAMS = Number(process.env.BENCH_STREAMS ?? 10_000);
const CHATS = Number(process.env.BENCH_CHATS ?? Math.min(1_000, Math.ceil(STREAMS / 10)));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const SEND_RATE = Number(process.env.BENCH_SEND_RATE ?? 20);
const OPEN_CONCURRENCY = Number(process.env.BENCH_OPEN_CONCURRENCY ?? 100);
const FILE_LIMIT = Number(process.env.BENCH_FILE_LIMIT ?? 65_536);
const HANDSHAKE_CONCURRENCY = 20;
/**
 * Messages sent before anything is timed: the first GraphQL calls of a fresh stack take seconds (the gateway plans and
 * compiles them), and an open-loop send rate would queue every timed send behind them.
 */
const WARMUP_SENDS = 50;
/** Streams opened and closed before the memory is measured, so the code they run is compiled by then. */
const WARMUP_STREAMS = Number(process.env.BENCH_WARMUP_STREAMS ?? Math.min(100, STREAMS));
/** How long the servers are left idle after the streams opened, before their memory is read. */
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 2_000);
/** How long deliveries may still arrive after the last send answered before the missing ones are counted. */
const DRAIN_MS = 30_000;
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** Set: widget-api runs as its own deployable on these Kafka brokers (tests/infra), the stack beside it on the same. */
const KAFKA_BROKERS = process.env.BENCH_KAFKA_BROKERS;
const TARGET = { streams: 10_000, p99Ms: 200, bytesPerStream: 20 * 1024 };

/** Sockets are never pooled or limited: each stream is its own connection, as each browser tab's is. */
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/**
 * Raises a process's open-file limit (soft and hard) to FILE_LIMIT and answers what it is now, from /proc/<pid>/limits.
 * Raising the hard limit needs CAP_SYS_RESOURCE; without it the process keeps soft = hard (node raises its soft limit
 * to the hard one when it starts), which the answer says.
 */
function raiseFileLimit(pid: number): string {
  let raised = true;
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${FILE_LIMIT}:${FILE_LIMIT}`], { stdio: 'pipe' });
  } catch {
    raised = false;
  }
  const line = fs
    .readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const [soft, hard] = line?.split(/\s{2,}/).slice(1, 3) ?? ['?', '?'];
  return `${soft} / ${hard}${raised ? '' : ' (the hard limit could not be raised)'}`;
}

function vmRssBytes(pid: number): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

interface MemorySample {
  vmRss: number;
  heapUsed: number;
  /** The V8 heap the process holds (used or not: young generation, free space of the old one). */
  heapTotal: number;
  /** Memory of Buffers and other objects outside the V8 heap (node's `external`). */
  external: number;
}

async function sampleMemory(pid: number, memory: () => Promise<BenchMemory>): Promise<MemorySample> {
  const reported = await memory();
  if (!reported.collected) console.error(`process ${pid} runs without --expose-gc: its heap was not collected first`);
  return {
    vmRss: vmRssBytes(pid),
    heapUsed: reported.heapUsed,
    heapTotal: reported.heapTotal,
    external: reported.external,
  };
}

/** Open event streams of one server, held until `closeAll`, with what went wrong counted by kind. */
class StreamSet {
  held = 0;
  opened = 0;
  endedEarly = 0;
  readonly errors: Record<string, number> = {};
  private readonly requests: http.ClientRequest[] = [];
  private closing = false;

  /** Resolves once the stream answered (true: 200, held) or failed; `onFrame` sees each SSE frame. */
  open(url: string, headers: Record<string, string>, onFrame?: (frame: string) => void): Promise<boolean> {
    return new Promise((resolve) => {
      let held = false;
      const request = http.get(url, { agent, headers }, (response) => {
        if (response.statusCode !== 200) {
          this.count(`HTTP ${response.statusCode ?? '?'}`);
          response.resume();
          resolve(false);
          return;
        }
        held = true;
        this.held += 1;
        this.opened += 1;
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (!onFrame) return;
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            onFrame(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        });
        response.once('close', () => {
          if (this.closing) return;
          this.held -= 1;
          this.endedEarly += 1;
        });
        resolve(true);
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (this.closing) return;
        this.count(`${held ? 'after open' : 'opening'}: ${error.code ?? error.message}`);
        resolve(false);
      });
      this.requests.push(request);
    });
  }

  closeAll(): void {
    this.closing = true;
    for (const request of this.requests.splice(0)) request.destroy();
  }

  private count(kind: string): void {
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
  }
}

/** Runs `count` jobs, `concurrency` at a time. */
async function pool(count: number, concurrency: number, job: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await job(index);
      }
    }),
  );
}

function cpuOf(stackPid: number, widgetPid?: number): { stack?: number; widget?: number } {
  return { stack: cpuMs(stackPid), widget: widgetPid === undefined ? undefined : cpuMs(widgetPid) };
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

interface Visitor {
  chatId: string;
  sessionToken: string;
  streams: number;
}

interface SessionBody {
  sessionToken: string;
  chat: { _id: string };
}

async function handshakes(url: string, publicKey: string, errors: Record<string, number>): Promise<Visitor[]> {
  const visitors: Visitor[] = [];
  await pool(CHATS, HANDSHAKE_CONCURRENCY, async () => {
    const response = await fetch(`${url}/api/web/visitor/start-anonymous`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ publicKey }),
    });
    const body = (await response.json()) as SessionBody;
    if (response.status !== 200) {
      errors[`handshake HTTP ${response.status}`] = (errors[`handshake HTTP ${response.status}`] ?? 0) + 1;
      return;
    }
    visitors.push({
      chatId: body.chat._id,
      sessionToken: body.sessionToken,
      streams: 0,
    });
  });
  return visitors;
}

/** Idle event streams to the bare server: its memory before and after, per stream. */
async function measureBare(): Promise<{ held: number; errors: Record<string, number>; perStream: MemorySample }> {
  const bare = await startBareServerProcess(['--expose-gc'], { sse: true });
  const streams = new StreamSet();
  try {
    console.error(`bare node:http open-file limit: ${raiseFileLimit(bare.pid)}`);
    const memory = () => sampleMemory(bare.pid, () => bare.memory());
    const warmup = new StreamSet();
    await pool(WARMUP_STREAMS, OPEN_CONCURRENCY, () => warmup.open(`${bare.url}/`, {}));
    warmup.closeAll();
    await sleep(1_000);
    const before = await memory();
    await pool(STREAMS, OPEN_CONCURRENCY, () => streams.open(`${bare.url}/`, {}));
    await sleep(SETTLE_MS);
    const after = await memory();
    const held = streams.held;
    return { held, errors: streams.errors, perStream: perStream(before, after, held) };
  } finally {
    streams.closeAll();
    await bare.stop();
  }
}

function perStream(before: MemorySample, after: MemorySample, held: number): MemorySample {
  return {
    vmRss: (after.vmRss - before.vmRss) / Math.max(1, held),
    heapUsed: (after.heapUsed - before.heapUsed) / Math.max(1, held),
    heapTotal: (after.heapTotal - before.heapTotal) / Math.max(1, held),
    external: (after.external - before.external) / Math.max(1, held),
  };
}

async function main(): Promise<void> {
  const loadBefore = machineLoad();
  console.log(`load average before: ${loadBefore}`);
  const clientLimit = raiseFileLimit(process.pid);

  const bare = await measureBare();
  console.error(`bare: ${bare.held} idle streams held, ${kb(bare.perStream.vmRss)} RSS per stream`);

  // Every visitor comes from 127.0.0.1: the per-address limit on new anonymous visitors would refuse most.
  const widgetEnv = { WIDGET_ANONYMOUS_BURST: '100000' };
  const measuredNodeArgs = ['--expose-gc', ...(PROFILE_DIR ? ['--cpu-prof', '--cpu-prof-dir', PROFILE_DIR] : [])];
  const kafka = KAFKA_BROKERS
    ? { brokers: KAFKA_BROKERS, topicPrefix: `bench-realtime-${process.pid}-${Date.now()}.` }
    : undefined;
  const stack = await startStackProcess(
    {
      ...widgetEnv,
      // One API key sends every message: the gateway's per-key cost budget would throttle it.
      GATEWAY_COST_BUDGET: '1000000000',
      GATEWAY_COST_REFILL_PER_SECOND: '1000000000',
      ...(kafka ? { KAFKA_BROKERS: kafka.brokers, KAFKA_TOPIC_PREFIX: kafka.topicPrefix } : {}),
    },
    { nodeArgs: kafka ? [] : measuredNodeArgs },
  );
  const streams = new StreamSet();
  const sendErrors: Record<string, number> = {};
  let standalone: WidgetApiProcess | undefined;
  try {
    if (kafka) standalone = await startWidgetApiProcess(stack, kafka, widgetEnv, measuredNodeArgs);
    /** The widget-api process measured: its own (on Kafka), else the stack. */
    const widgetApi = standalone ?? { pid: stack.pid, url: stack.url, memory: () => stack.memory() };
    const serverLimit = raiseFileLimit(widgetApi.pid);
    const measured = standalone ? 'widget-api (its own process)' : 'widget-api (stack process)';
    const publicKey = stack.demo.SVC_DEMO_WEB_PUBLIC_KEY ?? '';
    const apiKey = stack.demo.SVC_DEMO_API_KEY ?? '';
    const handshakeErrors: Record<string, number> = {};
    const started = performance.now();
    const visitors = await handshakes(widgetApi.url, publicKey, handshakeErrors);
    console.error(`${visitors.length} visitors in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // Latency bookkeeping: when each send started, and each delivery's delay.
    const sendStarts: number[] = [];
    const latencies: number[] = [];
    /** From the event's `occurredAt` (the inbox's commit, same machine clock) to its arrival: the fan-out alone. */
    const eventLatencies: number[] = [];
    const deliveredPerSend: number[] = [];
    const onFrame = (frame: string) => {
      if (!frame.includes('event: message.created')) return;
      const match = /"text":"bench:(\d+)"/.exec(frame);
      if (!match) return;
      const send = Number(match[1]);
      const start = sendStarts[send];
      if (start === undefined) return;
      latencies.push(performance.now() - start);
      const occurredAt = /"occurredAt":"([^"]+)"/.exec(frame)?.[1];
      if (occurredAt) eventLatencies.push(Date.now() - Date.parse(occurredAt));
      deliveredPerSend[send] = (deliveredPerSend[send] ?? 0) + 1;
    };
    const openStream = (set: StreamSet, visitor: Visitor, frames?: (frame: string) => void) =>
      set.open(
        `${widgetApi.url}/api/web/realtime/${visitor.chatId}`,
        {
          authorization: `Bearer ${visitor.sessionToken}`,
          // No Last-Event-ID: the stream starts after the chat's latest event (the warm-up messages are not replayed).
          accept: 'text/event-stream',
        },
        frames,
      );

    // Warm-up: streams open and messages fanned out to them (sequentially), then closed, before anything is measured.
    const warmup = new StreamSet();
    await pool(WARMUP_STREAMS, OPEN_CONCURRENCY, (i) => openStream(warmup, visitors[i % visitors.length] as Visitor));
    for (let i = 0; i < WARMUP_SENDS; i += 1) {
      const error = await sendMessage(stack.url, apiKey, (visitors[i % visitors.length] as Visitor).chatId, 'warm-up');
      if (error) throw new Error(`warm-up sendMessage failed: ${error}`);
    }
    warmup.closeAll();
    await sleep(1_000);
    const memory = () => sampleMemory(widgetApi.pid, () => widgetApi.memory());
    const before = await memory();
    const opening = performance.now();
    await pool(STREAMS, OPEN_CONCURRENCY, async (i) => {
      const visitor = visitors[i % visitors.length] as Visitor;
      if (await openStream(streams, visitor, onFrame)) visitor.streams += 1;
    });
    const openSeconds = (performance.now() - opening) / 1000;
    console.error(`${streams.held} streams open in ${openSeconds.toFixed(1)} s`);
    await sleep(SETTLE_MS);
    const after = await memory();
    const widget = perStream(before, after, streams.held);

    // Fan-out: every chat gets ROUNDS messages, sent at SEND_RATE per second whatever the answers take.
    const sends = visitors.length * ROUNDS;
    const sendLatencies: number[] = [];
    const cpuBefore = cpuOf(stack.pid, standalone?.pid);
    const inFlight: Promise<void>[] = [];
    const fanOutStart = performance.now();
    for (let send = 0; send < sends; send += 1) {
      const due = fanOutStart + (send * 1000) / SEND_RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const visitor = visitors[send % visitors.length] as Visitor;
      sendStarts[send] = performance.now();
      inFlight.push(
        sendMessage(stack.url, apiKey, visitor.chatId, `bench:${send}`).then(
          (error) => {
            sendLatencies.push(performance.now() - (sendStarts[send] ?? 0));
            if (error) sendErrors[error] = (sendErrors[error] ?? 0) + 1;
          },
          (error: unknown) => {
            sendErrors[String(error)] = (sendErrors[String(error)] ?? 0) + 1;
          },
        ),
      );
    }
    await Promise.all(inFlight);
    const expected = visitors.reduce((sum, visitor) => sum + visitor.streams * ROUNDS, 0);
    const deadline = performance.now() + DRAIN_MS;
    while (latencies.length < expected && performance.now() < deadline) await sleep(100);
    const cpuAfter = cpuOf(stack.pid, standalone?.pid);
    const fanOutSeconds = (performance.now() - fanOutStart) / 1000;
    const stillHeld = streams.held;

    latencies.sort((a, b) => a - b);
    sendLatencies.sort((a, b) => a - b);
    eventLatencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    const sendsFullyDelivered = visitors.reduce(
      (sum, visitor, index) =>
        sum +
        Array.from({ length: ROUNDS }, (_, round) => round * visitors.length + index).filter(
          (send) => (deliveredPerSend[send] ?? 0) >= visitor.streams,
        ).length,
      0,
    );

    console.log('');
    console.log(
      standalone
        ? `topology: widget-api's own deployable in a child process, on Kafka ${kafka?.brokers ?? ''}, calling the embedded stack (every other service + gateway, SQLite) in another; this process is the only client`
        : 'topology: the embedded stack (every service + gateway + widget-api in one node process, SQLite, in-process bus) as a child process; this process is the only client',
    );
    console.log(
      `open-file limits (soft / hard): client ${clientLimit}, ${measured} ${serverLimit} (asked ${FILE_LIMIT} with prlimit)`,
    );
    console.log(
      `\nstreams: ${STREAMS} asked over ${visitors.length} chats (${(STREAMS / Math.max(1, visitors.length)).toFixed(1)} tabs each), ` +
        `${streams.opened} opened in ${openSeconds.toFixed(1)} s, ${stillHeld} still held after the fan-out (${streams.endedEarly} ended by the server)`,
    );
    const allErrors = { ...handshakeErrors, ...streams.errors };
    console.log(`errors by kind: ${Object.keys(allErrors).length ? JSON.stringify(allErrors) : 'none'}`);
    console.log(
      `bare node:http: ${bare.held} idle streams held; errors ${Object.keys(bare.errors).length ? JSON.stringify(bare.errors) : 'none'}`,
    );
    console.log('\nmemory per idle stream (after - before, after a full GC, / streams held):');
    const row = (name: string, m: MemorySample) =>
      `| ${name} | ${kb(m.vmRss)} | ${kb(m.heapUsed)} | ${kb(m.heapTotal)} | ${kb(m.external)} |`;
    const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
    console.log('| server | VmRSS / stream | heap used / stream | heap total / stream | external / stream |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    console.log(row(measured, widget));
    console.log(row('bare node:http', bare.perStream));
    console.log(
      `| widget-api / bare | ${ratio(widget.vmRss, bare.perStream.vmRss)} | ${ratio(widget.heapUsed, bare.perStream.heapUsed)} | ${ratio(widget.heapTotal, bare.perStream.heapTotal)} | |`,
    );
    console.log(
      `${measured}: VmRSS ${kb(before.vmRss)} → ${kb(after.vmRss)}, heap used ${kb(before.heapUsed)} → ${kb(after.heapUsed)}, heap total ${kb(before.heapTotal)} → ${kb(after.heapTotal)}`,
    );
    console.log(
      `\nfan-out: ${sends} sendMessage calls (${ROUNDS} per chat) at ${SEND_RATE}/s over ${fanOutSeconds.toFixed(1)} s; ` +
        `${latencies.length} of ${expected} deliveries arrived (${sendsFullyDelivered} of ${sends} messages reached every tab)`,
    );
    console.log(
      `send-to-receive (send call start → message.created frame on a stream): p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(latencies.at(-1) ?? Number.NaN).toFixed(1)} ms`,
    );
    console.log(
      `event to receive (the event's occurredAt → its frame on a stream; ms clock): p50 ${percentile(eventLatencies, 0.5).toFixed(0)} ms, p99 ${percentile(eventLatencies, 0.99).toFixed(0)} ms`,
    );
    console.log(
      `sendMessage round trip: p50 ${percentile(sendLatencies, 0.5).toFixed(1)} ms, p99 ${percentile(sendLatencies, 0.99).toFixed(1)} ms; errors ${
        Object.keys(sendErrors).length ? JSON.stringify(sendErrors) : 'none'
      }`,
    );
    const perMessage = (after?: number, before?: number) =>
      after === undefined || before === undefined ? 'n/a' : `${((after - before) / Math.max(1, sends)).toFixed(1)} ms`;
    console.log(
      `CPU per message during the fan-out: stack ${perMessage(cpuAfter.stack, cpuBefore.stack)}` +
        (standalone ? `, widget-api ${perMessage(cpuAfter.widget, cpuBefore.widget)}` : ''),
    );

    console.log('\n| target | figure | |');
    console.log('| --- | --- | --- |');
    console.log(
      `| ${TARGET.streams} streams held | ${stillHeld} | ${met(stillHeld >= TARGET.streams)}${STREAMS < TARGET.streams ? ` (${STREAMS} asked)` : ''} |`,
    );
    console.log(
      `| fan-out p99 ≤ ${TARGET.p99Ms} ms | ${p99.toFixed(1)} ms (${latencies.length}/${expected} delivered) | ${met(p99 <= TARGET.p99Ms && latencies.length === expected)} |`,
    );
    console.log(
      `| ≤ ${kb(TARGET.bytesPerStream)} per idle stream | ${kb(widget.vmRss)} RSS, ${kb(widget.heapUsed)} heap | ${
        // Over a few hundred streams the GC's returns to the OS outweigh what they take: RSS can fall.
        widget.vmRss <= 0 ? 'n/a: RSS fell (too few streams to measure)' : met(widget.vmRss <= TARGET.bytesPerStream)
      } |`,
    );
    console.log(`\nload average after: ${machineLoad()}`);
  } finally {
    streams.closeAll();
    agent.destroy();
    await standalone?.stop();
    await stack.stop();
  }
}

/** GraphQL `sendMessage` as an agent's dashboard calls it; answers an error kind, or undefined when sent. */
async function sendMessage(url: string, apiKey: string, chatId: string, text: string): Promise<string | undefined> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({
      query: 'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
      variables: { c: chatId, i: { text, internal: false } },
    }),
  });
  const body = (await response.json()) as { data?: { sendMessage?: { _id: string } }; errors?: { message: string }[] };
  if (body.data?.sendMessage?._id) return undefined;
  return `HTTP ${response.status} ${body.errors?.[0]?.message ?? 'no message id'}`;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
