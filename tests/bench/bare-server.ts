/**
 * The baseline of `bench:ingress`: a bare `node:http` server that reads the body and answers 202 with a body shaped
 * like the ingress's, in its own process (as the stack is), so the load generator never shares its event loop.
 * With `sse: true`, the baseline of `bench:realtime`: it answers every request as an idle event stream (the headers
 * and a `retry:` frame, then nothing) and keeps it open, so its memory per open stream is what node:http itself costs.
 * Run directly (`node tests/dist/bench/bare-server.js`) it prints `{"port":…}` once listening and serves until SIGTERM;
 * over its IPC channel it answers the stack's `memory` bench command (`services/stack/src/bench-control.ts`).
 */
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import type { BenchMemory, BenchReply, BenchRequest } from '@svc/stack';

const ANSWER = '{"requestId":"000000000000000000000000","outcome":"ACCEPTED","flows":[]}';

const SSE_MODE = 'sse';

export interface BareServerProcess {
  pid: number;
  url: string;
  /** Its memory after a full GC when started with `--expose-gc`. */
  memory(): Promise<BenchMemory>;
  stop(): Promise<void>;
}

export async function startBareServerProcess(
  nodeArgs: string[] = [],
  options: { sse?: boolean } = {},
): Promise<BareServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, __filename], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, BARE_SERVER_MODE: options.sse ? SSE_MODE : '' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (!child.stdout) throw new Error('the bare server has no stdout');
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the bare server exited (${code}) before listening`)));
  });
  lines.close();
  let lastId = 0;
  return {
    pid: child.pid ?? 0,
    url: `http://127.0.0.1:${port}`,
    memory: () =>
      new Promise<BenchMemory>((resolve, reject) => {
        lastId += 1;
        const id = lastId;
        const onReply = (reply: BenchReply) => {
          if (reply.id !== id) return;
          child.off('message', onReply);
          if (reply.memory) resolve(reply.memory);
          else reject(new Error('the bare server answered no memory'));
        };
        child.on('message', onReply);
        child.send({ id, command: 'memory' } satisfies BenchRequest);
      }),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function serve(): void {
  const sse = process.env.BARE_SERVER_MODE === SSE_MODE;
  const server = http.createServer((req, res) => {
    if (sse) {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.write('retry: 3000\n\n');
      return;
    }
    req.resume();
    req.on('end', () => {
      res.writeHead(202, { 'content-type': 'application/json; charset=utf-8' });
      res.end(ANSWER);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on('message', (message: BenchRequest) => {
    if (message.command !== 'memory') return;
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    const memory = { rss, heapUsed, heapTotal, external, arrayBuffers, collected: gc !== undefined };
    process.send?.({ id: message.id, ok: true, memory } satisfies BenchReply);
  });
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

if (require.main === module) serve();
