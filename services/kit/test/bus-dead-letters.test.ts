import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  EmbeddedBus,
  KafkaBus,
  createLogger,
  dlqTopic,
  eventually,
  listDeadLetters,
  metricsRegistry,
  testRunId,
  type BusRecord,
  type DeliveredRecord,
} from '../src';

async function deadLetterCount(group: string, topic: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('svc_bus_dead_letters_total')?.get();
  return metric?.values.find((v) => v.labels.group === group && v.labels.topic === topic)?.value ?? 0;
}

const RETRY = { attempts: 3, backoffMs: 5 };
const brokers = process.env.SVC_TEST_KAFKA_BROKERS;
const buses: [string, () => EmbeddedBus | KafkaBus][] = [
  ['embedded', () => new EmbeddedBus({ retry: RETRY })],
  ...(brokers
    ? ([
        [
          'Kafka',
          () =>
            new KafkaBus({
              brokers: brokers.split(','),
              clientId: 'kit-test',
              logger: createLogger('kit-test', 'error'),
              retry: RETRY,
            }),
        ],
      ] as [string, () => KafkaBus][])
    : []),
];

/** The poison-record contract, on the embedded bus and (`npm run test:infra`) on Kafka. */
for (const [name, create] of buses) {
  describe(`kit bus retries and dead letters (${name})`, function () {
    this.timeout(60_000);
    let bus: EmbeddedBus | KafkaBus;
    let topic: string;
    let group: string;
    const record = (value: string, id: string): BusRecord => ({
      topic,
      key: 'one-key',
      value: Buffer.from(value),
      headers: { 'event-id': id },
    });

    beforeEach(async () => {
      const unique = `${testRunId}.${randomBytes(3).toString('hex')}`;
      topic = `kit-test.${unique}`;
      group = `kit-test.${unique}.group`;
      bus = create();
      await bus.start();
    });
    afterEach(() => bus.stop());

    it('a malformed record is retried, then published to <topic>.dlq with its error and counted; the next record is handled', async () => {
      const before = await deadLetterCount(group, topic);
      const handled: string[] = [];
      let attempts = 0;
      await bus.subscribe({
        groupId: group,
        topics: [topic],
        fromBeginning: true,
        handle: async (r) => {
          const value = r.value.toString();
          if (!value.startsWith('{')) {
            attempts += 1;
            throw new SyntaxError(`cannot decode ${value}`);
          }
          handled.push(value);
        },
      });
      await bus.publish([record('garbage', 'bad'), record('{"n":1}', 'good')]);
      await eventually(async () => handled.length === 1, 30_000, 'the record after the poison one');
      expect(handled).to.deep.equal(['{"n":1}']);
      expect(attempts).to.equal(RETRY.attempts);
      const [letter, ...more] = await eventually(async () => {
        const letters = await listDeadLetters(bus, topic);
        return letters.length > 0 && letters;
      });
      expect(more).to.have.length(0);
      expect(letter).to.include({ eventId: 'bad', topic, group, error: 'cannot decode garbage', attempts: 3 });
      expect(letter?.record.topic).to.equal(dlqTopic(topic));
      expect(letter?.record.value.toString()).to.equal('garbage');
      expect((await deadLetterCount(group, topic)) - before).to.equal(1);
    });

    it('a handler that fails twice then succeeds has exactly one effect and no dead letter', async () => {
      const effects: DeliveredRecord[] = [];
      let failures = 0;
      await bus.subscribe({
        groupId: group,
        topics: [topic],
        fromBeginning: true,
        handle: async (r) => {
          if (failures < 2) {
            failures += 1;
            throw new Error('transient');
          }
          effects.push(r);
        },
      });
      await bus.publish([record('{"n":1}', 'once')]);
      await eventually(async () => effects.length === 1, 30_000, 'the record to be handled');
      // A sentinel behind it on the same key: once it is handled, a redelivery of the first would have been too.
      await bus.publish([record('{"n":2}', 'sentinel')]);
      await eventually(async () => effects.length === 2, 30_000, 'the sentinel to be handled');
      expect(effects.map((r) => r.headers?.['event-id'])).to.deep.equal(['once', 'sentinel']);
      expect(failures).to.equal(2);
      expect(await listDeadLetters(bus, topic)).to.deep.equal([]);
    });
  });
}
