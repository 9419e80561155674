/**
 * `node tests/dist/bench/ingress.js`: accepted inbound webhooks per second and p99 per auth mode, with concurrent
 * clients, next to a bare `node:http` server that answers 202 in the same run (same process, same client). Prints
 * the ratios against the targets (HMAC modes ≥ 0.3 of bare; Shared Secret ≥ 0.5 of HMAC). A benchmark: nothing
 * asserts time. Embedded default (SQLite, in-process bus); flows run the accepted requests meanwhile, as in production.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '@svc/kit';
import { StackHarness } from '../support/stack-harness';
import { SIGNERS, connectionInputFor, signingSecretFor } from '../support/webhook-signers';
import { WebhookFixtures } from '../support/webhooks';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const WARMUP = 200;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20);

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  accepted: number;
}

async function measure(name: string, send: () => Promise<number>): Promise<Result> {
  for (let i = 0; i < WARMUP; i += 1) await send();
  const latencies: number[] = [];
  let accepted = 0;
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const t0 = process.hrtime.bigint();
        if ((await send()) === 202) accepted += 1;
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { name, rps: accepted / seconds, p50: at(0.5), p99: at(0.99), accepted };
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

async function main(): Promise<void> {
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end('{"requestId":"0","outcome":"ACCEPTED","flows":[]}');
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/webhooks/in/x`;

  const harness = new StackHarness();
  await harness.start();
  try {
    const org = await harness.newOrg('Bench');
    const fixtures = new WebhookFixtures(harness, org);
    const email = `bench-${newId()}@example.com`;
    await fixtures.contactWithChat(email);
    const body = JSON.stringify({ customer: { email }, order: { id: 'B-1', total: 42 } });
    const results: Result[] = [await measure('bare node:http 202', () => post(bareUrl, body, {}))];

    const shared = await fixtures.connection({});
    await fixtures.publishedFlow(shared._id, 'noop {{webhook.order.id}}');
    const sharedUrl = `${harness.url}/webhooks/in/${shared._id}`;
    results.push(
      await measure('Shared Secret', () => post(sharedUrl, body, { 'x-webhook-secret': shared.secret ?? '' })),
    );

    for (const mode of ['PAYMENTS_PROVIDER', 'WEBHOOK_DELIVERY_PLATFORM', 'HUB_SIGNATURE_256']) {
      const secret = signingSecretFor(mode);
      const connection = await fixtures.connection(connectionInputFor(mode, secret));
      await fixtures.publishedFlow(connection._id, 'noop');
      const url = `${harness.url}/webhooks/in/${connection._id}`;
      const sign = SIGNERS[mode]!;
      results.push(await measure(mode, () => post(url, body, sign(body, secret))));
    }

    const bareRps = results[0]?.rps ?? 1;
    const hmac = results.filter((r) => !['bare node:http 202', 'Shared Secret'].includes(r.name));
    const hmacRps = hmac.reduce((sum, r) => sum + r.rps, 0) / Math.max(1, hmac.length);
    console.log(`\n${REQUESTS} requests per row after ${WARMUP} warm-up, ${CONCURRENCY} concurrent clients\n`);
    console.log('| mode | accepted req/s | p50 ms | p99 ms | / bare |');
    console.log('| --- | ---: | ---: | ---: | ---: |');
    for (const r of results)
      console.log(
        `| ${r.name} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(1)} | ${(r.rps / bareRps).toFixed(2)} |`,
      );
    const sharedRps = results.find((r) => r.name === 'Shared Secret')?.rps ?? 0;
    console.log(`\nHMAC modes / bare: ${(hmacRps / bareRps).toFixed(2)} (target ≥ 0.3)`);
    console.log(`Shared Secret / HMAC: ${(sharedRps / hmacRps).toFixed(2)} (target ≥ 0.5)`);
  } finally {
    await harness.stop();
    bare.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
