import { baseConfigSchema, createBus, createLogger, type EventBus } from '@svc/kit';
import { WidgetApiApp, widgetConfigSchema } from '@svc/widget-api';
import type { StackHarness } from './stack-harness';

/**
 * A second widget-api beside the stack's, as another pod of the same deployment: the same database (a session started
 * on one is honoured on the other: decision 0173), its own memory, and on Kafka its own client.
 */
export class WidgetReplica {
  private constructor(
    readonly app: WidgetApiApp,
    private readonly bus: EventBus | undefined,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.app.httpPort}`;
  }

  static async start(harness: StackHarness, name: string): Promise<WidgetReplica> {
    const stack = harness.stack;
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
          KAFKA_SESSION_TIMEOUT_MS: true,
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
        DB_URL: stack.widget.config.DB_URL,
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
    return new WidgetReplica(app, bus);
  }

  async stop(): Promise<void> {
    await this.app.stop();
    await this.bus?.stop();
  }
}
