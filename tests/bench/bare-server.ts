/**
 * The baseline of `bench:ingress`: a bare `node:http` server that reads the body and answers 202 with a body shaped
 * like the ingress's, in its own process (as the stack is), so the load generator never shares its event loop.
 * With `sse: true`, the baseline of `bench:realtime`: it answers every request as an idle event stream (the headers
 * and a `retry:` frame, then nothing) and keeps it open, so its memory per open stream is what node:http itself costs.
 * Run directly (`node tests/dist/bench/bare-server.js`) it prints `{"port":…}` once listening and serves until SIGTERM;
 * over its IPC channel it answers the stack's `memory` bench command (`memory-probe.ts`, preloaded).
 */
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { MEMORY_PROBE, askMemory, type ProbedServerProcess } from './memory-probe';

const ANSWER = '{"requestId":"000000000000000000000000","outcome":"ACCEPTED","flows":[]}';

const SSE_MODE = 'sse';

export type BareServerProcess = ProbedServerProcess;

export async function startBareServerProcess(
  nodeArgs: string[] = [],
  options: { sse?: boolean } = {},
): Promise<BareServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, '-r', MEMORY_PROBE, __filename], {
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
  return {
    pid: child.pid ?? 0,
    url: `http://127.0.0.1:${port}`,
    memory: () => askMemory(child),
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
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

if (require.main === module) serve();
