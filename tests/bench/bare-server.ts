/**
 * The baseline of `bench:ingress`: a bare `node:http` server that reads the body and answers 202 with a body shaped
 * like the ingress's, in its own process (as the stack is), so the load generator never shares its event loop.
 * Run directly (`node tests/dist/bench/bare-server.js`) it prints `{"port":…}` once listening and serves until SIGTERM.
 */
import { spawn } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

const ANSWER = '{"requestId":"000000000000000000000000","outcome":"ACCEPTED","flows":[]}';

export interface BareServerProcess {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

export async function startBareServerProcess(nodeArgs: string[] = []): Promise<BareServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, __filename], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const lines = createInterface({ input: child.stdout });
  const port = await new Promise<number>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the bare server exited (${code}) before listening`)));
  });
  lines.close();
  return {
    pid: child.pid ?? 0,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function serve(): void {
  const server = http.createServer((req, res) => {
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
