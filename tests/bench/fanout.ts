/**
 * `npm run bench:fanout`: partner fan-out deliveries per second to a local receiver, and enqueue-to-delivery latency
 * p50 / p99, next to bare HTTP POSTs of the same body to the same receiver in the same run (the ratio is printed), with
 * the machine's load average before and after. A benchmark: nothing asserts time.
 *
 * The partner side runs here as a replica does (services/partner: `Fanout` committing deliveries to its database,
 * SQLite file or BENCH_DB_URL, and the `DeliveryEngine` woken by each commit, signing every attempt with the secrets
 * module); the receiver is a bare node:http server in its own process (`fanout-receiver.ts`). Rows:
 * - **bare**: BENCH_DELIVERIES POSTs of a delivery's body with BENCH_CONCURRENCY in flight (the engine's concurrency);
 * - **burst**: BENCH_DELIVERIES events enqueued in batches of BENCH_BATCH (as the bus hands a backlog over), sent by the
 *   engine; deliveries/s from the first enqueue to the last arrival, latency from each event's enqueue to its arrival;
 * - **paced**: BENCH_PACED events one at a time, each enqueued once the previous one arrived: the latency of a quiet
 *   system (wake-up, claim, sign, send).
 * Defaults: BENCH_DELIVERIES 5 000, BENCH_BATCH 100, BENCH_PACED 300, BENCH_CONCURRENCY 32.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createLogger, newId, openDataSource, SecretKeyring } from '@svc/kit';
import {
  DeliveryEngine,
  Fanout,
  PartnerDeliveryRow,
  PartnerWebhookRow,
  WebhookSecrets,
  partnerData,
  type PartnerEvent,
} from '@svc/partner';
import { PartnerWebhookState_Status as WebhookStatus } from '@svc/proto/partner/v1/partner_webhooks';
import { machineLoad } from './machine-load';
import { startReceiverProcess } from './fanout-receiver';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 5_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const PACED = Number(process.env.BENCH_PACED ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);

const provider = newId();
const client = newId();
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

function summary(latencies: number[]): string {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`;
}

function event(): PartnerEvent {
  return {
    eventId: newId(),
    kind: 'message.created',
    clientOrgId: client,
    occurredAt: new Date().toISOString(),
    contactId: newId(),
    data: { clientOrgId: client, messageId: newId(), chatId: newId(), text: 'Hello, is the order on its way?' },
  };
}

/** `event()` stamped with the time it is handed to the fan-out (the receiver measures from it). */
function stamped(): PartnerEvent {
  const made = event();
  return { ...made, data: { ...made.data, enqueuedAt: performance.timeOrigin + performance.now() } as never };
}

function bodyOf(made: PartnerEvent): string {
  return JSON.stringify({ type: made.kind, timestamp: made.occurredAt, data: made.data });
}

function post(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json' } },
      (r) => {
        r.resume();
        r.on('end', () => resolve());
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function bare(url: string): Promise<number> {
  const body = bodyOf(event());
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < DELIVERIES) await post(url, body);
    }),
  );
  return DELIVERIES / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  console.log(`load before: ${machineLoad()}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-fanout-'));
  const receiver = await startReceiverProcess();
  const dataSource = await openDataSource(
    { ...partnerData, url: process.env.BENCH_DB_URL ?? `sqlite:${path.join(dir, 'partner.sqlite')}` },
    { migrate: true },
  );
  const secrets = new WebhookSecrets(new SecretKeyring([{ id: 'bench', key: randomBytes(32) }]), 0);
  const webhookId = newId();
  const at = new Date();
  await dataSource.manager.insert(
    PartnerWebhookRow,
    Object.assign(new PartnerWebhookRow(), {
      id: webhookId,
      orgId: provider,
      url: receiver.url,
      events: ['message.created'],
      status: WebhookStatus.ENABLED,
      disabledReason: null,
      disabledAt: null,
      description: null,
      ...secrets.issue({ orgId: provider, id: webhookId }).columns,
      failingSince: null,
      createdAt: at,
      updatedAt: at,
    }),
  );
  const engine = new DeliveryEngine(dataSource, secrets, createLogger('bench-fanout', 'warn'), {
    policy: { allowInsecure: true },
    timeoutMs: 15_000,
    concurrency: CONCURRENCY,
    pollMs: 1_000,
  });
  const fanout = new Fanout(dataSource, {
    providerOf: async (orgId) => (orgId === client ? provider : ''),
    onCreated: () => void engine.wake(),
    clock: () => new Date(),
  });
  engine.start();
  const arrived = async (count: number) => {
    let requests = 0;
    const latencies: number[] = [];
    while (requests < count) {
      const taken = await receiver.take();
      requests += taken.requests;
      latencies.push(...taken.latencies);
      if (requests < count) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return latencies;
  };
  try {
    // Warm-up (V8 compiles both sides' code as it runs): a tenth of a row, bare and through the engine.
    await post(receiver.url, bodyOf(event()));
    await fanout.record(Array.from({ length: Math.min(500, DELIVERIES / 10) }, event));
    await arrived(Math.min(500, DELIVERIES / 10) + 1);

    const bareRate = await bare(receiver.url);
    await receiver.take();

    const started = performance.now();
    for (let sent = 0; sent < DELIVERIES; sent += BATCH)
      await fanout.record(Array.from({ length: Math.min(BATCH, DELIVERIES - sent) }, stamped));
    const burst = await arrived(DELIVERIES);
    const burstRate = DELIVERIES / ((performance.now() - started) / 1000);

    const paced: number[] = [];
    for (let i = 0; i < PACED; i++) {
      await fanout.record([stamped()]);
      paced.push(...(await arrived(1)));
    }

    const delivered = await dataSource.manager.countBy(PartnerDeliveryRow, { webhookId });
    console.log(`bare POSTs (${CONCURRENCY} in flight): ${bareRate.toFixed(0)} req/s`);
    console.log(
      `fan-out burst (${DELIVERIES} in batches of ${BATCH}): ${burstRate.toFixed(0)} deliveries/s, ${summary(burst)}`,
    );
    console.log(`ratio fan-out / bare: ${(burstRate / bareRate).toFixed(3)}`);
    console.log(`fan-out paced (${PACED}, one at a time): ${summary(paced)} enqueue-to-delivery`);
    console.log(`deliveries in the database: ${delivered}`);
  } finally {
    await engine.stop();
    await dataSource.destroy();
    await receiver.stop();
    agent.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
    console.log(`load after: ${machineLoad()}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
