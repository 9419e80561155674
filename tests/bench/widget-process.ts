import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import { eventually, testTrustEnv } from '@svc/kit';
import { MEMORY_PROBE, askMemory, type ProbedServerProcess } from './memory-probe';
import type { StackProcess } from './stack-process';

export type WidgetApiProcess = ProbedServerProcess;

/**
 * widget-api's own deployable (`services/widget-api/dist/src/main.js`) in a process of its own, as a replica runs in
 * Kubernetes: it calls the stack's channels, contacts and inbox over gRPC and hears the inbox's events on Kafka
 * (`brokers`, the stack started on the same brokers and `topicPrefix`). Its database is a SQLite file in the stack's
 * data dir (removed with it); the memory probe is preloaded.
 */
export async function startWidgetApiProcess(
  stack: StackProcess,
  kafka: { brokers: string; topicPrefix: string },
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<WidgetApiProcess> {
  const port = await freePort();
  const main = path.resolve(__dirname, '../../../services/widget-api/dist/src/main.js');
  const child = spawn(process.execPath, [...nodeArgs, '-r', MEMORY_PROBE, main], {
    env: {
      ...process.env,
      ...testTrustEnv('widget-api'),
      LOG_LEVEL: 'error',
      DB_URL: `sqlite:${path.join(stack.dataDir, 'widget-api-standalone.sqlite')}`,
      KAFKA_BROKERS: kafka.brokers,
      KAFKA_TOPIC_PREFIX: kafka.topicPrefix,
      HTTP_PORT: String(port),
      GRPC_PORT: '0',
      CHANNELS_GRPC_URL: `127.0.0.1:${stack.grpc.channels}`,
      CONTACTS_GRPC_URL: `127.0.0.1:${stack.grpc.contacts}`,
      INBOX_GRPC_URL: `127.0.0.1:${stack.grpc.inbox}`,
      ...env,
    },
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
    'the standalone widget-api to be ready',
  );
  return {
    pid: child.pid ?? 0,
    url,
    memory: () => askMemory(child),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A port nothing listens on now (the deployable takes HTTP_PORT from its environment). */
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
