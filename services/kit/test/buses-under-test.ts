import { EmbeddedBus, KafkaBus, createLogger, type RetryPolicy } from '../src';

/** The buses a contract test runs on: the embedded one always, Kafka too under `npm run test:infra`. */
export function busesUnderTest(retry: Partial<RetryPolicy>): [string, () => EmbeddedBus | KafkaBus][] {
  const brokers = process.env.SVC_TEST_KAFKA_BROKERS;
  const embedded: [string, () => EmbeddedBus] = ['embedded', () => new EmbeddedBus({ retry })];
  if (!brokers) return [embedded];
  const kafka: [string, () => KafkaBus] = [
    'Kafka',
    () =>
      new KafkaBus({
        brokers: brokers.split(','),
        clientId: 'kit-test',
        logger: createLogger('kit-test', 'error'),
        retry,
      }),
  ];
  return [embedded, kafka];
}
