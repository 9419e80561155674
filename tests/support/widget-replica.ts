import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { baseConfigSchema, createBus, createLogger, dropTestDatabase, testDbUrl, type EventBus } from '@svc/kit';
import { WidgetApiApp, widgetConfigSchema } from '@svc/widget-api';
import type { StackHarness } from './stack-harness';

/** A second widget-api beside the stack's, as another pod: its own database, and on Kafka its own client. */
export class WidgetReplica {
  private constructor(
    readonly app: WidgetApiApp,
    private readonly bus: EventBus | undefined,
    private readonly dataDir: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.app.httpPort}`;
  }

  static async start(harness: StackHarness, name: string): Promise<WidgetReplica> {
    const stack = harness.stack;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-${name}-`));
    const kafka = process.env.SVC_TEST_KAFKA_BROKERS;
    const prefix = stack.config.KAFKA_TOPIC_PREFIX;
    let bus: EventBus | undefined;
    if (kafka) {
      // Its own Kafka client, as another pod: its own consumer group sees every record.
      const busConfig = baseConfigSchema
        .pick({
          KAFKA_BROKERS: true,
          KAFKA_CLIENT_ID: true,
          KAFKA_TOPIC_PREFIX: true,
          EMBEDDED_BUS_FILE: true,
          BUS_RETRY_ATTEMPTS: true,
          BUS_RETRY_BACKOFF_MS: true,
          KAFKA_SSL: true,
        })
        .parse({ KAFKA_BROKERS: kafka, KAFKA_TOPIC_PREFIX: prefix });
      bus = createBus(busConfig, createLogger(`${name}-bus`, 'warn'));
    }
    const app = new WidgetApiApp(
      widgetConfigSchema.parse({
        DB_URL: testDbUrl(name.replaceAll('-', '_'), path.join(dataDir, 'widget-api.sqlite')),
        KAFKA_BROKERS: kafka ?? stack.widget.config.KAFKA_BROKERS,
        KAFKA_TOPIC_PREFIX: prefix,
        SVC_TRUST_JWKS: stack.trustKeys.jwks,
        SVC_SIGNING_KEY: JSON.stringify(stack.trustKeys.signing['widget-api']),
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: '0',
        HTTP_PORT: '0',
        LOG_LEVEL: 'warn',
        CHANNELS_GRPC_URL: `127.0.0.1:${stack.channels.grpcPort}`,
        CONTACTS_GRPC_URL: `127.0.0.1:${stack.contacts.grpcPort}`,
        INBOX_GRPC_URL: `127.0.0.1:${stack.inbox.grpcPort}`,
      }),
      // On the embedded default both share the stack's in-process bus, as co-located processes cannot.
      { bus: bus ?? stack.bus },
    );
    if (bus) await bus.start();
    await app.start();
    return new WidgetReplica(app, bus, dataDir);
  }

  async stop(): Promise<void> {
    await this.app.stop();
    await this.bus?.stop();
    await dropTestDatabase(this.app.config.DB_URL);
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }
}
