/**
 * `npm run bench:ingress`: accepted inbound webhooks per second, p50 and p99 per auth mode with concurrent clients,
 * next to a bare `node:http` server answering 202, measured in the same run with the same client. Prints the ratios
 * against the targets (HMAC modes ≥ 0.3 of bare; Shared Secret ≥ 0.5 of HMAC). A benchmark: nothing asserts time.
 *
 * Production-shaped: the stack (`npm start`'s entry point: SQLite, in-process bus) runs in its own process, the bare
 * server in another, the load generator here. Flows consume and run every accepted request (one `SendMessage` each)
 * in the stack process meanwhile; after each row's warm-up and after the row itself the bench waits until they have
 * caught up, so no row pays for another's backlog, and prints how long the row's own backlog took.
 *
 * BENCH_REQUESTS (per row, default 2000), BENCH_WARMUP (default 500), BENCH_CONCURRENCY (default 20), BENCH_MODES
 * (comma-separated subset of `Shared Secret`, PAYMENTS_PROVIDER, WEBHOOK_DELIVERY_PLATFORM, HUB_SIGNATURE_256),
 * BENCH_CPU_PROF=<dir> (write a V8 CPU profile of the stack process there).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import { PrincipalCodec, eventually, grpcClient, newId, systemPrincipal, unary } from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import type { GraphQLResponse } from '../support/stack-harness';
import { SIGNERS, connectionInputFor, signingSecretFor } from '../support/webhook-signers';
import { WebhookFixtures, type FixtureOrg, type HttpStack } from '../support/webhooks';
import { startBareServerProcess } from './bare-server';
import { startStackProcess, type StackProcess } from './stack-process';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);
const BARE = 'bare node:http 202';
const SHARED = 'Shared Secret';
const HMAC_MODES = ['PAYMENTS_PROVIDER', 'WEBHOOK_DELIVERY_PLATFORM', 'HUB_SIGNATURE_256'];
const MODES = process.env.BENCH_MODES?.split(',') ?? [SHARED, ...HMAC_MODES];

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  accepted: number;
  /** The server process's CPU time per accepted request during the row (ms), when /proc is available. */
  serverCpuMs?: number;
  /** Answers other than 202, by status (a healthy run has none). */
  refused: Record<number, number>;
  /** ms from the row's last response until flows had run every accepted request. */
  drainMs?: number;
}

/** CPU time (user + system, ms) a process has used so far; undefined where /proc is not available. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime (fields 14 and 15 of stat(5)) in clock ticks of 1/100 s (USER_HZ on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** One keep-alive connection per concurrent client, as a sender's HTTP client pool would hold. */
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** `count` requests from CONCURRENCY clients; calls `each` with every answer's status and latency. */
async function load(count: number, send: () => Promise<number>, each: (status: number, ms: number) => void) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        const t0 = process.hrtime.bigint();
        const status = await send();
        each(status, Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
}

/**
 * Warm-up (as concurrent as the row, so both servers' hot paths are compiled), then `settle` (the stack: flows
 * have run the warm-up's requests, so the row carries only its own backlog), then the measured row.
 */
async function measure(
  name: string,
  serverPid: number,
  send: () => Promise<number>,
  settle?: () => Promise<unknown>,
): Promise<Result> {
  await load(WARMUP, send, () => undefined);
  await settle?.();
  const cpuBefore = cpuMs(serverPid);
  const latencies: number[] = [];
  let accepted = 0;
  const refused: Record<number, number> = {};
  const started = process.hrtime.bigint();
  await load(REQUESTS, send, (status, ms) => {
    if (status === 202) accepted += 1;
    else refused[status] = (refused[status] ?? 0) + 1;
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

/** The stack in the other process, seen only through its HTTP surface (and the inbox's gRPC to open a chat). */
class RemoteStack implements HttpStack {
  constructor(readonly url: string) {}

  async graphql<T = Record<string, unknown>>(
    query: string,
    variables: Record<string, unknown> = {},
    token?: string,
  ): Promise<GraphQLResponse<T>> {
    const response = await fetch(`${this.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as GraphQLResponse<T>['body'] };
  }
}

/** The demo org of the stack process, logged in as its owner. */
async function demoOrg(stack: StackProcess, remote: RemoteStack): Promise<FixtureOrg> {
  const login = await remote.graphql<{ login: { token: string } }>(
    'mutation($e: String!, $p: String!) { login(email: $e, password: $p) { token } }',
    { e: stack.demo.SVC_DEMO_EMAIL, p: stack.demo.SVC_DEMO_PASSWORD },
  );
  const sessionToken = login.body.data?.login.token;
  if (!sessionToken) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  const codec = new PrincipalCodec(stack.internalSecret);
  const identity = grpcClient(IdentityServiceClient, `127.0.0.1:${stack.grpc.identity}`);
  const owner = await unary(
    identity.authenticate.bind(identity),
    { credential: sessionToken, actAsOrgId: '' },
    codec.metadata(systemPrincipal()),
  ).finally(() => identity.close());
  return {
    sessionToken,
    openChat: async (contact = {}) => {
      const inbox = grpcClient(InboxServiceClient, `127.0.0.1:${stack.grpc.inbox}`);
      try {
        const chat = await unary(
          inbox.openChat.bind(inbox),
          { channelId: newId(), contact: { _id: newId(), name: 'Bench Customer', ...contact } },
          codec.metadata(systemPrincipal(owner.orgId)),
        );
        return chat._id;
      } finally {
        inbox.close();
      }
    },
  };
}

/** Waits until the flow's newest runs have all finished (the runner works oldest first): flows caught up. */
async function flowsDrained(remote: RemoteStack, org: FixtureOrg, flowId: string): Promise<number> {
  const started = Date.now();
  await eventually(
    async () => {
      const runs = await remote.graphql<{ flowRuns: { data: { status: string }[] } }>(
        'query($f: String!) { flowRuns(flowId: $f, input: { limit: 50 }) { data { status } } }',
        { f: flowId },
        org.sessionToken,
      );
      const data = runs.body.data?.flowRuns.data ?? [];
      return data.length > 0 && data.every((r) => r.status === 'COMPLETED' || r.status === 'FAILED');
    },
    600_000,
    'flows to run every accepted request',
  );
  return Date.now() - started;
}

function report(results: Result[]): void {
  const bare = results.find((r) => r.name === BARE)?.rps ?? 1;
  const hmac = results.filter((r) => HMAC_MODES.includes(r.name));
  const hmacRps = hmac.reduce((sum, r) => sum + r.rps, 0) / Math.max(1, hmac.length);
  console.log(
    `\n${REQUESTS} requests per row after ${WARMUP} warm-up requests (flows caught up in between), ${CONCURRENCY} concurrent clients`,
  );
  console.log('stack and bare server each in their own process; flows run every accepted request in the stack\n');
  console.log('| mode | accepted req/s | p50 ms | p99 ms | / bare | server CPU ms / request | flows caught up after |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results)
    console.log(
      `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(1)} | ${(r.rps / bare).toFixed(2)} | ${
        r.serverCpuMs === undefined ? '' : r.serverCpuMs.toFixed(2)
      } | ${r.drainMs === undefined ? '' : `${(r.drainMs / 1000).toFixed(1)} s`} |`,
    );
  const refused = results.filter((r) => Object.keys(r.refused).length);
  console.log(
    refused.length
      ? `\nanswers other than 202: ${refused.map((r) => `${r.name} ${JSON.stringify(r.refused)}`).join('; ')}`
      : '\nevery request was accepted (202)',
  );
  const shared = results.find((r) => r.name === SHARED)?.rps;
  if (hmac.length) console.log(`\nHMAC modes / bare: ${(hmacRps / bare).toFixed(2)} (target ≥ 0.3)`);
  if (hmac.length && shared !== undefined)
    console.log(`Shared Secret / HMAC: ${(shared / hmacRps).toFixed(2)} (target ≥ 0.5)`);
}

async function main(): Promise<void> {
  const profileDir = process.env.BENCH_CPU_PROF;
  const [bare, stack] = await Promise.all([
    startBareServerProcess(),
    startStackProcess({}, profileDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir] } : {}),
  ]);
  try {
    const remote = new RemoteStack(stack.url);
    const org = await demoOrg(stack, remote);
    const fixtures = new WebhookFixtures(remote, org);
    const email = `bench-${newId()}@example.com`;
    await fixtures.contactWithChat(email);
    const body = JSON.stringify({ customer: { email }, order: { id: 'B-1', total: 42 } });

    const results: Result[] = [await measure(BARE, bare.pid, () => post(`${bare.url}/webhooks/in/x`, body, {}))];
    for (const mode of MODES) {
      const shared = mode === SHARED;
      const secret = shared ? '' : signingSecretFor(mode);
      const connection = await fixtures.connection(shared ? {} : connectionInputFor(mode, secret));
      const flowId = await fixtures.publishedFlow(connection._id, 'noop {{webhook.order.id}}');
      const url = `${stack.url}/webhooks/in/${connection._id}`;
      const sign = SIGNERS[mode];
      const headers = shared
        ? () => ({ 'x-webhook-secret': connection.secret ?? '' })
        : () => (sign ? sign(body, secret) : {});
      const drained = () => flowsDrained(remote, org, flowId);
      const result = await measure(mode, stack.pid, () => post(url, body, headers()), drained);
      result.drainMs = await drained();
      results.push(result);
      console.error(
        `${mode}: ${result.rps.toFixed(0)} req/s, flows caught up after ${result.drainMs} ms, not 202: ${JSON.stringify(result.refused)}`,
      );
    }
    report(results);
  } finally {
    agent.destroy();
    await Promise.all([stack.stop(), bare.stop()]);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
