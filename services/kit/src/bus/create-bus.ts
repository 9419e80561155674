import type { Logger } from 'pino';
import type { BaseConfig } from '../config';
import type { EventBus } from './bus';
import { EmbeddedBus } from './embedded-bus';
import { KafkaBus } from './kafka-bus';

export type KafkaSettings = Pick<
  BaseConfig,
  | 'KAFKA_BROKERS'
  | 'KAFKA_CLIENT_ID'
  | 'KAFKA_SSL'
  | 'KAFKA_SASL_MECHANISM'
  | 'KAFKA_SASL_USERNAME'
  | 'KAFKA_SASL_PASSWORD'
  | 'KAFKA_TOPIC_PREFIX'
  | 'EMBEDDED_BUS_FILE'
  | 'BUS_RETRY_ATTEMPTS'
  | 'BUS_RETRY_BACKOFF_MS'
>;

/**
 * Kafka when KAFKA_BROKERS is set, otherwise the in-process bus of the embedded default, its log in
 * EMBEDDED_BUS_FILE.
 */
export function createBus(config: KafkaSettings, logger: Logger, topics: string[] = []): EventBus {
  const brokers = config.KAFKA_BROKERS.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const retry = { attempts: config.BUS_RETRY_ATTEMPTS, backoffMs: config.BUS_RETRY_BACKOFF_MS };
  if (!brokers.length) return new EmbeddedBus({ file: config.EMBEDDED_BUS_FILE, logger, retry });
  const sasl =
    config.KAFKA_SASL_MECHANISM && config.KAFKA_SASL_USERNAME && config.KAFKA_SASL_PASSWORD
      ? {
          mechanism: config.KAFKA_SASL_MECHANISM,
          username: config.KAFKA_SASL_USERNAME,
          password: config.KAFKA_SASL_PASSWORD,
        }
      : undefined;
  return new KafkaBus({
    brokers,
    clientId: config.KAFKA_CLIENT_ID,
    ssl: config.KAFKA_SSL,
    ...(sasl ? { sasl } : {}),
    topics: topics.map((t) => config.KAFKA_TOPIC_PREFIX + t),
    logger,
    retry,
  });
}
