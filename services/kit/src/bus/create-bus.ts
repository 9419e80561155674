import type { Logger } from 'pino';
import type { BaseConfig } from '../config';
import type { EventBus } from './bus';
import { IN_PROCESS_BUS, NO_BUS, brokerList } from './bus-settings';
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
  | 'KAFKA_SESSION_TIMEOUT_MS'
  | 'EMBEDDED_BUS_FILE'
  | 'BUS_RETRY_ATTEMPTS'
  | 'BUS_RETRY_BACKOFF_MS'
>;

/**
 * Kafka at KAFKA_BROKERS; the in-process bus of the embedded default (its log in EMBEDDED_BUS_FILE) only when the
 * stack chose it with IN_PROCESS_BUS. The config schemas refuse a partial SASL setting (`checkKafkaSecurity`).
 */
export function createBus(config: KafkaSettings, logger: Logger, topics: string[] = []): EventBus {
  const retry = { attempts: config.BUS_RETRY_ATTEMPTS, backoffMs: config.BUS_RETRY_BACKOFF_MS };
  if (config.KAFKA_BROKERS === IN_PROCESS_BUS)
    return new EmbeddedBus({ file: config.EMBEDDED_BUS_FILE, logger, retry });
  if (config.KAFKA_BROKERS === NO_BUS) throw new Error('this command was configured without a bus (withoutBus)');
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username, KAFKA_SASL_PASSWORD: password } = config;
  const sasl = mechanism && username && password ? { mechanism, username, password } : undefined;
  return new KafkaBus({
    brokers: brokerList(config.KAFKA_BROKERS),
    clientId: config.KAFKA_CLIENT_ID,
    ssl: config.KAFKA_SSL,
    ...(sasl ? { sasl } : {}),
    topics: topics.map((t) => config.KAFKA_TOPIC_PREFIX + t),
    sessionTimeoutMs: config.KAFKA_SESSION_TIMEOUT_MS,
    logger,
    retry,
  });
}
