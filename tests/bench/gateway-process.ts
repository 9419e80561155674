import * as path from 'node:path';
import { appsOfSubgraphs, endpointVariable } from '@svc/gateway';
import { testTrustEnv } from '@svc/kit';
import { startDeployableProcess, type DeployableProcess } from './deployable-process';

/**
 * The gateway as it is deployed (mesh's own entry point, `mesh/dist/src/main.js`) in its own process, calling the
 * services of a running stack over gRPC with the gateway's signing key the stack trusts (kit's test keys). Its bus is
 * Kafka, as the deployed gateway's: `kafkaBrokers` (tests/infra/up.sh provisions one).
 */
export function startGatewayProcess(
  grpcPorts: Record<string, number>,
  kafkaBrokers: string,
  nodeEnv: string,
): Promise<DeployableProcess> {
  const endpoints = Object.fromEntries(
    appsOfSubgraphs().map((app) => {
      const grpcPort = grpcPorts[app];
      if (!grpcPort) throw new Error(`the stack serves no gRPC for ${app}`);
      return [endpointVariable(app), `127.0.0.1:${grpcPort}`];
    }),
  );
  return startDeployableProcess({
    main: path.resolve(__dirname, '../../../mesh/dist/src/main.js'),
    portVariable: 'PORT',
    what: 'the gateway process',
    env: {
      ...testTrustEnv('gateway'),
      ...endpoints,
      NODE_ENV: nodeEnv,
      KAFKA_BROKERS: kafkaBrokers,
      KAFKA_TOPIC_PREFIX: `bench-${process.pid}-`,
    },
  });
}
