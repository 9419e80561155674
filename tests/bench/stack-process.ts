import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { eventually, testTrustKeys } from '@svc/kit';
import type { BenchCommand, BenchMemory, BenchReply, BenchRequest } from '@svc/stack';

export interface StackProcess {
  /** The server's process id (e.g. to read its CPU time). */
  pid: number;
  url: string;
  dataDir: string;
  grpc: Record<string, number>;
  demo: Record<string, string>;
  /**
   * Pauses or resumes flows' consumer of `svc.webhooks.received.v1` in the server (over the IPC channel,
   * `services/stack/src/bench-control.ts`); resolves once done.
   */
  control(command: BenchCommand): Promise<BenchReply>;
  /** The server's memory after a full GC (start it with `nodeArgs: ['--expose-gc']`), over the same IPC channel. */
  memory(): Promise<BenchMemory>;
  /** SIGTERM, then removes the data dir. */
  stop(): Promise<void>;
  /** `kill -9`: no shutdown at all; the data dir stays for a restart on it. */
  kill(): Promise<void>;
}

export interface StackProcessOptions {
  /** Extra arguments for node itself, e.g. `['--cpu-prof', '--cpu-prof-dir', dir]` to profile the server. */
  nodeArgs?: string[];
  /** Start on this data dir (a restart after `kill()`) instead of a fresh one. */
  dataDir?: string;
  /** Write the server's stdout (its JSON log lines) to this file instead of discarding it. */
  stdoutFile?: string;
}

/**
 * The keys of secrets at rest a production stack refuses to start without (webhook-ingress's provider secrets,
 * decision 0014; channels' identity secrets, decision 0075; partner's webhook signing secrets): throwaway ones.
 */
function throwawaySecretsKeys(): Record<string, string> {
  const key = () => `bench:${randomBytes(32).toString('base64')}`;
  return { WEBHOOK_SECRETS_KEYS: key(), CHANNELS_SECRETS_KEYS: key(), PARTNER_SECRETS_KEYS: key() };
}

/**
 * Runs `npm start`'s entry point in its own process (as in production, the server does not share an event loop
 * with the load generator) on a fresh data dir (or, after `kill()`, the same one again), and waits until it has seeded
 * the demo org and listens.
 */
export async function startStackProcess(
  env: Record<string, string> = {},
  options: StackProcessOptions = {},
): Promise<StackProcess> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  // A killed stack leaves its runtime file behind: the new one marks this process as listening.
  fs.rmSync(path.join(dataDir, 'stack.json'), { force: true });
  const main = path.resolve(__dirname, '../../../services/stack/dist/src/main.js');
  const stdout = options.stdoutFile ? fs.openSync(options.stdoutFile, 'w') : 'ignore';
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), main], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      SVC_DATA_DIR: dataDir,
      BCRYPT_COST: '4',
      SVC_BENCH_CONTROL: 'ipc',
      // This process's keys (kit testTrustKeys): `callerMetadata` then signs calls the stack's services trust.
      SVC_TRUST_KEYS: JSON.stringify(testTrustKeys()),
      ...((env.NODE_ENV ?? process.env.NODE_ENV) === 'production' ? throwawaySecretsKeys() : {}),
      ...env,
    },
    stdio: ['ignore', stdout, 'inherit', 'ipc'],
  });
  if (typeof stdout === 'number') fs.closeSync(stdout);
  let lastId = 0;
  const pending = new Map<number, { resolve: (reply: BenchReply) => void; reject: (error: Error) => void }>();
  child.on('message', (message: BenchReply) => {
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.ok) waiter?.resolve(message);
    else waiter?.reject(new Error(`the stack refused a bench command: ${message.error ?? ''}`));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error('the stack process exited'));
    pending.clear();
  });
  const control = (command: BenchCommand) =>
    new Promise<BenchReply>((resolve, reject) => {
      lastId += 1;
      pending.set(lastId, { resolve, reject });
      child.send({ id: lastId, command } satisfies BenchRequest);
    });
  const read = (name: string) => {
    const file = path.join(dataDir, name);
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  };
  // Read once written: the stack writes it in one go, but a read may land between its creation and the write.
  const demoText = await eventually(
    async () => (read('demo.env')?.includes('SVC_DEMO_PASSWORD=') ? read('demo.env') : undefined),
    60_000,
    'the stack to seed its demo org',
  );
  const runtime = JSON.parse((await eventually(async () => read('stack.json'), 60_000, 'stack.json')) as string) as {
    pid: number;
    url: string;
    grpc: Record<string, number>;
  };
  const demo = Object.fromEntries(
    demoText
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  return {
    pid: runtime.pid,
    url: runtime.url.replace('localhost', '127.0.0.1'),
    dataDir,
    grpc: runtime.grpc,
    demo,
    control,
    memory: async () => {
      const reply = await control('memory');
      if (!reply.memory) throw new Error('the stack answered no memory');
      return reply.memory;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** CPU time (user + system, ms) a process has used so far; undefined where /proc is not available. */
export function cpuMs(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime (fields 14 and 15 of stat(5)) in clock ticks of 1/100 s (USER_HZ on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * How many times a process's main thread (its event loop) has gone to sleep so far: `voluntary_ctxt_switches` of its
 * thread-group leader (proc(5)); undefined where /proc is not available. Each is a wait in epoll with nothing to do,
 * after which the next piece of work starts on cold caches (docs/performance.md, issue 12's ninth pass).
 */
export function mainThreadSleeps(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    const match = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
