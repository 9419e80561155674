import { spawn, type ChildProcess } from 'node:child_process';
import * as net from 'node:net';
import { eventually } from '@svc/kit';

export interface DeployableProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

/** A port nothing listens on now (a deployable takes its port from its environment). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A deployable's own entry point (`main`) in a process of its own, as a replica runs in Kubernetes, listening on a
 * free port it is given as `portVariable`; resolves once its `/readyz` answers 200. An IPC channel is open for the
 * memory probe (tests/bench/memory-probe.ts).
 */
export async function startDeployableProcess(options: {
  main: string;
  portVariable: string;
  env: Record<string, string>;
  nodeArgs?: string[];
  /** Names the process in a readiness timeout. */
  what: string;
}): Promise<DeployableProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.main], {
    env: { ...process.env, LOG_LEVEL: 'error', ...options.env, [options.portVariable]: String(port) },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => {
      const ready = await fetch(`${url}/readyz`).then(
        (response) => response.ok,
        () => false,
      );
      return ready || undefined;
    },
    60_000,
    `${options.what} to be ready`,
  );
  return {
    child,
    pid: child.pid ?? 0,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
