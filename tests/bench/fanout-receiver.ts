/**
 * The receiver of `bench:fanout`, in its own process (as a provider's endpoint is): a bare `node:http` server that
 * reads each body and answers 200. For each request carrying a `data.enqueuedAt` (epoch ms, set by the bench when it
 * enqueued the event) it keeps the enqueue-to-arrival latency. Run directly it prints `{"port":…}` once listening; over
 * its IPC channel `take` answers the latencies gathered since the last `take` and forgets them.
 */
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

export interface ReceiverProcess {
  url: string;
  /** Requests and latencies (ms) since the last call. */
  take(): Promise<{ requests: number; latencies: number[] }>;
  stop(): Promise<void>;
}

export async function startReceiverProcess(): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, [__filename], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (!child.stdout) throw new Error('the receiver has no stdout');
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the receiver exited (${code}) before listening`)));
  });
  lines.close();
  return {
    url: `http://127.0.0.1:${port}/hook`,
    take: () =>
      new Promise((resolve) => {
        child.once('message', (message) => resolve(message as { requests: number; latencies: number[] }));
        child.send('take');
      }),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function serve(): void {
  let requests = 0;
  let latencies: number[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      requests++;
      const enqueuedAt = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { enqueuedAt?: number } }).data
        ?.enqueuedAt;
      if (typeof enqueuedAt === 'number') latencies.push(at - enqueuedAt);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on('message', () => {
    process.send?.({ requests, latencies });
    requests = 0;
    latencies = [];
  });
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

if (require.main === module) serve();
