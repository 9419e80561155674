/**
 * `npm run bench`: sendMessage through the public gateway (HTTP + GraphQL + Mesh gRPC transport) next to the same
 * call made straight to the inbox gRPC service, in the same run, sequentially and with 10 concurrent callers.
 * Prints req/s, p50, p99 and the gateway/direct throughput ratio. A benchmark, not a test: nothing asserts time.
 */
import * as http from 'node:http';
import { PrincipalCodec, grpcClient, systemPrincipal, unary } from '@svc/kit';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { startStackProcess } from './stack-process';

const WARMUP = 200;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
}

async function measure(name: string, concurrency: number, call: () => Promise<void>): Promise<Result> {
  for (let i = 0; i < WARMUP; i += 1) await call();
  const latencies: number[] = [];
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < REQUESTS) {
        next += 1;
        const t0 = process.hrtime.bigint();
        await call();
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { name, rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99) };
}

function print(results: Result[], baseline: Result): void {
  for (const r of results) {
    console.log(
      `${r.name.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   ratio vs direct ${(r.rps / baseline.rps).toFixed(2)}`,
    );
  }
}

async function main(): Promise<void> {
  const stack = await startStackProcess();
  try {
    const key = stack.demo.SVC_DEMO_API_KEY ?? '';
    const chatId = stack.demo.SVC_DEMO_CHAT_ID ?? '';
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const body = JSON.stringify({
      query: 'mutation($c: String!) { sendMessage(chatId: $c, input: { text: "bench" }) { _id deliveryStatus } }',
      variables: { c: chatId },
    });
    const viaGateway = () =>
      new Promise<void>((resolve, reject) => {
        const request = http.request(
          `${stack.url}/graphql`,
          {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              authorization: `Bearer ${key}`,
              'content-length': Buffer.byteLength(body),
            },
          },
          (response) => {
            response.resume();
            response.on('end', () =>
              response.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${response.statusCode}`)),
            );
          },
        );
        request.on('error', reject);
        request.end(body);
      });
    // The direct baseline carries the same principal the gateway would send, authenticated once.
    const codec = new PrincipalCodec(stack.internalSecret);
    const identity = grpcClient(IdentityServiceClient, `127.0.0.1:${stack.grpc.identity}`);
    const principal = await unary(
      identity.authenticate.bind(identity),
      { credential: key, actAsOrgId: '' },
      codec.metadata(systemPrincipal()),
    );
    const inbox = grpcClient(InboxServiceClient, `127.0.0.1:${stack.grpc.inbox}`);
    const metadata = codec.metadata(principal);
    const direct = async () => {
      await unary(inbox.sendMessage.bind(inbox), { chatId, input: { text: 'bench', internal: false } }, metadata);
    };
    console.log(
      `sendMessage, ${REQUESTS} requests per row after ${WARMUP} warm-up; server: npm start's stack in its own process (SQLite, embedded bus)`,
    );
    for (const concurrency of [1, 10]) {
      const baseline = await measure(`direct gRPC (c=${concurrency})`, concurrency, direct);
      const gateway = await measure(`gateway HTTP GraphQL (c=${concurrency})`, concurrency, viaGateway);
      print([baseline, gateway], baseline);
    }
    identity.close();
    inbox.close();
    agent.destroy();
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
