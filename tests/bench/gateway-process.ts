import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { appsOfSubgraphs, endpointVariable } from '@svc/gateway';
import { eventually, testTrustEnv } from '@svc/kit';

export interface GatewayProcess {
  pid: number;
  url: string;
  /** SIGTERM, and waits for the exit. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * The gateway as it is deployed (mesh's own entry point, `mesh/dist/src/main.js`) in its own process, calling the
 * services of a running stack over gRPC with the gateway's signing key the stack trusts (kit's test keys). Its bus is
 * Kafka, as the deployed gateway's: `kafkaBrokers` (tests/infra/up.sh provisions one).
 */
export async function startGatewayProcess(
  grpcPorts: Record<string, number>,
  kafkaBrokers: string,
  nodeEnv: string,
): Promise<GatewayProcess> {
  const port = await freePort();
  const endpoints = Object.fromEntries(
    appsOfSubgraphs().map((app) => {
      const grpcPort = grpcPorts[app];
      if (!grpcPort) throw new Error(`the stack serves no gRPC for ${app}`);
      return [endpointVariable(app), `127.0.0.1:${grpcPort}`];
    }),
  );
  const main = path.resolve(__dirname, '../../../mesh/dist/src/main.js');
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      ...testTrustEnv('gateway'),
      ...endpoints,
      NODE_ENV: nodeEnv,
      PORT: String(port),
      LOG_LEVEL: 'error',
      KAFKA_BROKERS: kafkaBrokers,
      KAFKA_TOPIC_PREFIX: `bench-${process.pid}-`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(
    async () => ((await fetch(`${url}/readyz`).catch(() => undefined))?.ok ? true : undefined),
    60_000,
    'the gateway process to be ready',
  );
  if (!child.pid) throw new Error('the gateway process has no pid');
  return {
    pid: child.pid,
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
