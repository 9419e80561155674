import * as path from 'node:path';
import { testTrustEnv } from '@svc/kit';
import { startDeployableProcess } from './deployable-process';
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
  const started = await startDeployableProcess({
    main: path.resolve(__dirname, '../../../services/widget-api/dist/src/main.js'),
    portVariable: 'HTTP_PORT',
    nodeArgs: [...nodeArgs, '-r', MEMORY_PROBE],
    what: 'the standalone widget-api',
    env: {
      ...testTrustEnv('widget-api'),
      DB_URL: `sqlite:${path.join(stack.dataDir, 'widget-api-standalone.sqlite')}`,
      KAFKA_BROKERS: kafka.brokers,
      KAFKA_TOPIC_PREFIX: kafka.topicPrefix,
      GRPC_PORT: '0',
      CHANNELS_GRPC_URL: `127.0.0.1:${stack.grpc.channels}`,
      CONTACTS_GRPC_URL: `127.0.0.1:${stack.grpc.contacts}`,
      INBOX_GRPC_URL: `127.0.0.1:${stack.grpc.inbox}`,
      ...env,
    },
  });
  return { pid: started.pid, url: started.url, memory: () => askMemory(started.child), stop: started.stop };
}
