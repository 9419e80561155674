/**
 * `npm run bench:ingress`: accepted inbound webhooks per second, p50 and p99 per auth mode with concurrent clients,
 * next to a bare `node:http` server answering 202, measured in the same run with the same client. Prints the ratios
 * against the targets (HMAC modes ≥ 0.3 of bare; Shared Secret ≥ 0.5 of HMAC). A benchmark: nothing asserts time.
 *
 * The stack (`npm start`'s entry point: SQLite, in-process bus) runs in its own process, the bare server in another,
 * the load generator here. Each auth mode is measured twice:
 * - **flows paused** (a webhook-ingress replica as deployed, where flows and the inbox run in their own pods): flows'
 *   consumer of `svc.webhooks.received.v1` is paused for the measured window (over the stack process's IPC channel,
 *   `services/stack/src/bench-control.ts`), so the accepted events wait on the bus; then it is resumed and the bench
 *   times how long flows and the inbox take to run them all, and their CPU per run.
 * - **flows running**: flows consume and run every accepted request (one `SendMessage` each) in the same process
 *   meanwhile, competing with the ingress for its event loop and the machine's two cores.
 * The bare server is measured again between auth modes, and each row is divided by the mean of the two bare rows
 * around its mode: on a shared machine the load drifts over a run, and one baseline at the start would credit or charge the
 * modes for it. Every row starts after a warm-up whose flow runs have finished, so no row pays for another's backlog. After each
 * row the bench waits until flows have run every accepted request and checks, in flows' own database (as the e2e
 * suite's "500 webhooks with the consumer stopped" test does), that each accepted request id has exactly one run and
 * that it COMPLETED; it fails otherwise.
 *
 * BENCH_REQUESTS (per row, default 10 000), BENCH_WARMUP (per row, default 500), BENCH_PROCESS_WARMUP (once, default 20 000), BENCH_CONCURRENCY (default 20), BENCH_MODES
 * (comma-separated subset of `Shared Secret` and the HMAC_MODES below),
 * BENCH_FLOWS (comma-separated subset of `paused`, `running`; default both), BENCH_CPU_PROF=<dir> (write a V8 CPU
 * profile of the stack process there).
 */
import * as http from 'node:http';
import { newId } from '@svc/kit';
import { FlowRunsLedger, RemoteStack, demoOrg } from '../support/remote-stack';
import { SIGNERS, connectionInputFor, signingSecretFor } from '../support/webhook-signers';
import { WebhookFixtures } from '../support/webhooks';
import { startBareServerProcess } from './bare-server';
import { machineLoad } from './machine-load';
import { cpuMs, startStackProcess } from './stack-process';

/**
 * Long enough that a row lasts seconds, not tenths: 2 000 requests were 0.1 s of the bare server and 0.4 s of the
 * stack, where one GC pause or a neighbour's burst on the shared machine moved a row's rate by a third.
 */
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 10_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
/**
 * Requests sent once before anything is measured, to the bare server and to the stack: the load generator's own code
 * (and both servers') is compiled by V8 as it runs, and a cold client caps the first bare row far below the later ones
 * (4 500 vs 15 000 req/s here), which would flatter every ratio taken against it.
 */
const PROCESS_WARMUP = Number(process.env.BENCH_PROCESS_WARMUP ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const BARE = 'bare node:http 202';
const SHARED = 'Shared Secret';
/** Every HMAC mode (spec 5.3): the five providers and Generic HMAC, hex (`X-Hub-Signature-256`) and base64 (Shopify). */
const HMAC_MODES = [
  'PAYMENTS_PROVIDER',
  'TEAM_CHAT_PROVIDER',
  'WEBHOOK_DELIVERY_PLATFORM',
  'BILLING_PROVIDER',
  'BUSINESS_BANKING_PROVIDER',
  'HUB_SIGNATURE_256',
  'SHOPIFY',
];
const MODES = process.env.BENCH_MODES?.split(',') ?? [SHARED, ...HMAC_MODES];
type Flows = 'paused' | 'running';
const FLOWS = (process.env.BENCH_FLOWS?.split(',') ?? ['paused', 'running']) as Flows[];

interface Result {
  name: string;
  /** What flows did during the measured row (undefined: the bare server). */
  flows?: Flows;
  rps: number;
  p50: number;
  p99: number;
  accepted: number;
  /** The server process's CPU time per accepted request during the row (ms), when /proc is available. */
  serverCpuMs?: number;
  /** Answers other than 202, by status (a healthy run has none). */
  refused: Record<number, number>;
  /** ms from the row's last response (paused: from the consumer's resumption) until flows had run every request. */
  drainMs?: number;
  /** Paused rows: the server process's CPU time per run while flows and the inbox worked through the backlog. */
  runCpuMs?: number;
  /** The mean req/s of the bare rows measured just before and just after this mode: the row's baseline. */
  bare?: number;
}

interface Answer {
  status: number;
  /** The 202 body's request id (the history row, which flows records on the run). */
  requestId?: string;
}

/** One keep-alive connection per concurrent client, as a sender's HTTP client pool would hold. */
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

/**
 * A keep-alive connection the server closed as idle just as it was reused fails with ECONNRESET before anything was
 * sent back: the request is sent again on a fresh connection, as Node's documentation advises for `reusedSocket`.
 */
async function post(url: string, body: string, headers: Record<string, string>): Promise<Answer> {
  try {
    return await postOnce(url, body, headers);
  } catch (error) {
    if ((error as { reusedSocketReset?: boolean }).reusedSocketReset) return postOnce(url, body, headers);
    throw error;
  }
}

function postOnce(url: string, body: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status !== 202) return resolve({ status });
          try {
            resolve({ status, requestId: (JSON.parse(text) as { requestId?: string }).requestId });
          } catch {
            resolve({ status });
          }
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        request.reusedSocket && error.code === 'ECONNRESET' ? Object.assign(error, { reusedSocketReset: true }) : error,
      ),
    );
    request.end(body);
  });
}

/** `count` requests from CONCURRENCY clients; calls `each` with every answer and its latency. */
async function load(count: number, send: () => Promise<Answer>, each: (answer: Answer, ms: number) => void) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        const t0 = process.hrtime.bigint();
        const answer = await send();
        each(answer, Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
}

/**
 * Warm-up (as concurrent as the row, so both servers' hot paths are compiled), then `settle` (the stack: flows
 * have run the warm-up's requests, so the row carries only its own backlog), then the measured row. `record` sees
 * every answer, warm-up included.
 */
async function measure(
  name: string,
  serverPid: number,
  send: () => Promise<Answer>,
  hooks: { settle?: () => Promise<unknown>; record?: (answer: Answer) => void } = {},
): Promise<Result> {
  await load(WARMUP, send, (answer) => hooks.record?.(answer));
  await hooks.settle?.();
  const cpuBefore = cpuMs(serverPid);
  const latencies: number[] = [];
  let accepted = 0;
  const refused: Record<number, number> = {};
  const started = process.hrtime.bigint();
  await load(REQUESTS, send, (answer, ms) => {
    hooks.record?.(answer);
    if (answer.status === 202) accepted += 1;
    else refused[answer.status] = (refused[answer.status] ?? 0) + 1;
    latencies.push(ms);
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = cpuMs(serverPid);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const serverCpuMs =
    cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / Math.max(1, accepted);
  return { name, rps: accepted / seconds, p50: at(0.5), p99: at(0.99), accepted, refused, serverCpuMs };
}

const FLOWS_LABEL: Record<Flows, string> = {
  paused: 'ingress replica (flows paused during the row)',
  running: 'whole stack (flows running meanwhile)',
};

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
const relative = (r: Result) => r.rps / (r.bare ?? r.rps);

function ratios(results: Result[], flows: Flows): string | undefined {
  const rows = results.filter((r) => r.flows === flows);
  const hmac = mean(rows.filter((r) => HMAC_MODES.includes(r.name)).map(relative));
  if (!hmac) return undefined;
  const shared = rows.find((r) => r.name === SHARED);
  return `${FLOWS_LABEL[flows]}: HMAC modes / bare ${hmac.toFixed(2)} (target ≥ 0.3)${
    shared === undefined ? '' : `, Shared Secret / HMAC ${(relative(shared) / hmac).toFixed(2)} (target ≥ 0.5)`
  }`;
}

function report(results: Result[], checked: number): void {
  console.log(
    `\n${REQUESTS} requests per row after ${WARMUP} warm-up requests (flows caught up in between), ${CONCURRENCY} concurrent clients`,
  );
  console.log('stack and bare server each in their own process; flows paused or running in the stack during the row');
  console.log(
    '"/ bare": divided by the mean of the bare server rows measured just before and just after the mode ("bare req/s")\n',
  );
  console.log(
    '| mode | flows during the row | accepted req/s | p50 ms | p99 ms | bare req/s | / bare | server CPU ms / request | flows caught up after | flows + inbox CPU ms / run |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results)
    console.log(
      `| ${r.name} | ${r.flows ?? ''} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(1)} | ${(r.bare ?? r.rps).toFixed(0)} | ${relative(r).toFixed(2)} | ${
        r.serverCpuMs === undefined ? '' : r.serverCpuMs.toFixed(3)
      } | ${r.drainMs === undefined ? '' : `${(r.drainMs / 1000).toFixed(1)} s`} | ${
        r.runCpuMs === undefined ? '' : r.runCpuMs.toFixed(2)
      } |`,
    );
  const refused = results.filter((r) => Object.keys(r.refused).length);
  console.log(
    refused.length
      ? `\nanswers other than 202: ${refused.map((r) => `${r.name} (${r.flows ?? ''}) ${JSON.stringify(r.refused)}`).join('; ')}`
      : '\nevery request was accepted (202)',
  );
  console.log(`exactly once: ${checked} accepted requests, ${checked} runs (one COMPLETED run per request id)\n`);
  for (const flows of FLOWS) {
    const line = ratios(results, flows);
    if (line) console.log(line);
  }
}

/** PROCESS_WARMUP requests to the bare server, then to the stack through one HMAC connection (checked exactly once). */
async function warmUp(
  fixtures: WebhookFixtures,
  ledger: FlowRunsLedger,
  stackUrl: string,
  body: string,
  postBare: () => Promise<Answer>,
): Promise<number> {
  await load(PROCESS_WARMUP, postBare, () => undefined);
  const mode = 'PAYMENTS_PROVIDER';
  const secret = signingSecretFor(mode);
  const sign = SIGNERS[mode];
  const connection = await fixtures.connection(connectionInputFor(mode, secret));
  const flowId = await fixtures.publishedFlow(connection._id, 'warm-up {{webhook.order.id}}');
  const accepted = new Set<string>();
  await load(
    PROCESS_WARMUP / 4,
    () => post(`${stackUrl}/webhooks/in/${connection._id}`, body, sign ? sign(body, secret) : {}),
    (answer) => {
      if (answer.status === 202 && answer.requestId) accepted.add(answer.requestId);
    },
  );
  await ledger.drained(flowId, accepted.size);
  await ledger.checkExactlyOnce(flowId, accepted);
  console.error(`warm-up: ${PROCESS_WARMUP} bare requests, ${accepted.size} accepted webhooks (ran exactly once)`);
  return accepted.size;
}

async function main(): Promise<void> {
  console.log(`load average before: ${machineLoad()}`);
  const profileDir = process.env.BENCH_CPU_PROF;
  const [bare, stack] = await Promise.all([
    startBareServerProcess(),
    startStackProcess({}, profileDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir] } : {}),
  ]);
  const ledger = await FlowRunsLedger.open(stack.dataDir);
  try {
    const remote = new RemoteStack(stack.url);
    const org = await demoOrg(stack, remote);
    const fixtures = new WebhookFixtures(remote, org);
    const email = `bench-${newId()}@example.com`;
    await fixtures.contactWithChat(email);
    const body = JSON.stringify({ customer: { email }, order: { id: 'B-1', total: 42 } });

    const postBare = () => post(`${bare.url}/webhooks/in/x`, body, {});
    const measureBare = () => measure(BARE, bare.pid, postBare);
    const results: Result[] = [];
    let checked = await warmUp(fixtures, ledger, stack.url, body, postBare);
    // The bare row after a mode is the next mode's row before.
    let bareBefore = await measureBare();
    results.push(bareBefore);
    for (const mode of MODES) {
      const modeRows: Result[] = [];
      const shared = mode === SHARED;
      const secret = shared ? '' : signingSecretFor(mode);
      const connection = await fixtures.connection(shared ? {} : connectionInputFor(mode, secret));
      const flowId = await fixtures.publishedFlow(connection._id, 'noop {{webhook.order.id}}');
      const url = `${stack.url}/webhooks/in/${connection._id}`;
      const sign = SIGNERS[mode];
      const headers = shared
        ? () => ({ 'x-webhook-secret': connection.secret ?? '' })
        : () => (sign ? sign(body, secret) : {});
      // Every request id this connection's flow has been sent, warm-ups included: each must get exactly one run.
      const accepted = new Set<string>();
      const record = (answer: Answer) => {
        if (answer.status === 202 && answer.requestId) accepted.add(answer.requestId);
      };
      const caughtUp = () => ledger.drained(flowId, accepted.size);
      for (const flows of FLOWS) {
        const settle = async () => {
          await caughtUp();
          if (flows === 'paused') await stack.control('pause-flows-consumer');
        };
        const result = await measure(mode, stack.pid, () => post(url, body, headers()), { settle, record });
        result.flows = flows;
        modeRows.push(result);
        if (flows === 'paused') {
          const cpuBefore = cpuMs(stack.pid);
          await stack.control('resume-flows-consumer');
          result.drainMs = await caughtUp();
          const cpuAfter = cpuMs(stack.pid);
          if (cpuBefore !== undefined && cpuAfter !== undefined)
            result.runCpuMs = (cpuAfter - cpuBefore) / Math.max(1, result.accepted);
        } else {
          result.drainMs = await caughtUp();
        }
        await ledger.checkExactlyOnce(flowId, accepted);
        results.push(result);
        console.error(
          `${mode}, flows ${flows}: ${result.rps.toFixed(0)} req/s, flows caught up after ${result.drainMs} ms` +
            `${result.runCpuMs === undefined ? '' : ` (${result.runCpuMs.toFixed(2)} ms CPU per run)`}, ` +
            `not 202: ${JSON.stringify(result.refused)}`,
        );
      }
      checked += accepted.size;
      const bareAfter = await measureBare();
      results.push(bareAfter);
      for (const row of modeRows) row.bare = (bareBefore.rps + bareAfter.rps) / 2;
      bareBefore = bareAfter;
    }
    report(results, checked);
    console.log(`load average after: ${machineLoad()}`);
  } finally {
    agent.destroy();
    await ledger.close();
    await Promise.all([stack.stop(), bare.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
