import { expect } from 'chai';
import { Kafka, type ConsumerConfig } from 'kafkajs';
import {
  FETCH_MAX_WAIT_MS,
  KafkaBus,
  createBus,
  createLogger,
  loadConfig,
  serviceConfigSchema,
  testTrustKeys,
} from '../src';

/**
 * What the Kafka bus asks of its client, with kafkajs' client stubbed (no broker): the real thing runs in every suite
 * of `npm run test:infra`.
 */
describe('kit.KafkaBus client use', () => {
  const original = {
    admin: Kafka.prototype.admin,
    producer: Kafka.prototype.producer,
    consumer: Kafka.prototype.consumer,
  };
  let adminsOpened: number;
  let existing: Set<string>;
  let sent: number;
  let failSends: boolean;
  let consumers: ConsumerConfig[];
  /** How many metadata answers of a new topic are still "unknown" (a broker that has not spread the create yet). */
  let settlingAnswers: number;
  let createAnswersSettling: boolean;
  const idle = async () => undefined;

  beforeEach(() => {
    adminsOpened = 0;
    existing = new Set(['already-there']);
    sent = 0;
    failSends = false;
    consumers = [];
    settlingAnswers = 0;
    createAnswersSettling = false;
    Kafka.prototype.admin = function () {
      adminsOpened += 1;
      return {
        connect: idle,
        disconnect: idle,
        listTopics: async () => [...existing],
        createTopics: async ({ topics }: { topics: { topic: string }[] }) => {
          for (const { topic } of topics) existing.add(topic);
          if (createAnswersSettling) throw unknownTopic();
          return true;
        },
        fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
          if (settlingAnswers > 0) {
            settlingAnswers -= 1;
            throw unknownTopic();
          }
          return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader: 1 }] })) };
        },
      } as unknown as ReturnType<Kafka['admin']>;
    };
    Kafka.prototype.producer = function () {
      return {
        connect: idle,
        disconnect: idle,
        sendBatch: async () => {
          if (failSends) throw new Error('This server does not host this topic-partition');
          sent += 1;
        },
      } as unknown as ReturnType<Kafka['producer']>;
    };
    Kafka.prototype.consumer = function (config: ConsumerConfig) {
      consumers.push(config);
      return {
        connect: idle,
        disconnect: idle,
        subscribe: idle,
        run: idle,
        on: () => () => undefined,
        events: {},
      } as unknown as ReturnType<Kafka['consumer']>;
    };
  });

  afterEach(() => Object.assign(Kafka.prototype, original));

  /** What kafkajs throws for a topic the broker does not know yet (a KafkaJSProtocolError's `type`). */
  const unknownTopic = () =>
    Object.assign(new Error('This server does not host this topic-partition'), { type: 'UNKNOWN_TOPIC_OR_PARTITION' });

  const bus = () =>
    new KafkaBus({ brokers: ['127.0.0.1:1'], clientId: 'kit-test', logger: createLogger('kit-test', 'error') });

  it('asks the broker about a topic once, not before every publish', async () => {
    const kafka = bus();
    await kafka.start();
    const record = (topic: string) => ({ topic, key: 'k', value: Buffer.from('v') });
    for (let i = 0; i < 5; i += 1) await kafka.publish([record('new-topic'), record('already-there')]);
    expect(sent).to.equal(5);
    expect(existing.has('new-topic')).to.equal(true);
    expect(adminsOpened).to.equal(1);
    await kafka.subscribe({ groupId: 'g', topics: ['new-topic'], handle: idle });
    expect(adminsOpened, 'a topic it published to is known to its consumers too').to.equal(1);
    await kafka.stop();
  });

  it('asks again after a failed publish, so a topic deleted meanwhile is created again', async () => {
    const kafka = bus();
    await kafka.start();
    const records = [{ topic: 'new-topic', key: 'k', value: Buffer.from('v') }];
    await kafka.publish(records);
    existing.delete('new-topic');
    failSends = true;
    await kafka.publish(records).then(
      () => expect.fail('the publish should have failed'),
      () => undefined,
    );
    failSends = false;
    await kafka.publish(records);
    expect(existing.has('new-topic')).to.equal(true);
    expect(adminsOpened).to.equal(2);
    await kafka.stop();
  });

  it("waits through the broker's settling answers about a topic it just created (kafkajs gives up on them)", async () => {
    const kafka = bus();
    await kafka.start();
    createAnswersSettling = true;
    settlingAnswers = 2;
    await kafka.publish([{ topic: 'new-topic', key: 'k', value: Buffer.from('v') }]);
    expect(sent).to.equal(1);
    expect(settlingAnswers, 'it asked until the topic had leaders').to.equal(0);
    await kafka.stop();
  });

  it('consumers ask the broker to answer a fetch with nothing new within FETCH_MAX_WAIT_MS, not kafkajs’ 5 s', async () => {
    const kafka = bus();
    await kafka.start();
    await kafka.subscribe({ groupId: 'g', topics: ['already-there'], handle: idle });
    expect(consumers.map((c) => c.maxWaitTimeInMs)).to.deep.equal([FETCH_MAX_WAIT_MS]);
    expect(FETCH_MAX_WAIT_MS).to.be.below(5_000);
    await kafka.stop();
  });

  it('consumers keep the session KAFKA_SESSION_TIMEOUT_MS sets (Kafka’s 30 s unless set), heartbeating at a third of it at most', async () => {
    const env = { DB_URL: 'sqlite::memory:', SVC_TRUST_JWKS: testTrustKeys().jwks, KAFKA_BROKERS: '127.0.0.1:1' };
    const logger = createLogger('kit-test', 'error');
    for (const [setting, expected] of [
      [undefined, { sessionTimeout: 30_000, heartbeatInterval: 3_000 }],
      ['6000', { sessionTimeout: 6_000, heartbeatInterval: 2_000 }],
    ] as const) {
      const config = loadConfig(serviceConfigSchema, setting ? { ...env, KAFKA_SESSION_TIMEOUT_MS: setting } : env);
      const kafka = createBus(config, logger);
      await kafka.start();
      await kafka.subscribe({ groupId: 'g', topics: ['already-there'], handle: idle });
      const [consumer] = consumers.splice(0);
      expect({
        sessionTimeout: consumer?.sessionTimeout,
        heartbeatInterval: consumer?.heartbeatInterval,
      }).to.deep.equal(expected);
      await kafka.stop();
    }
    // Below the broker's own least (group.min.session.timeout.ms, 6 s by default) a consumer could never join.
    expect(() => loadConfig(serviceConfigSchema, { ...env, KAFKA_SESSION_TIMEOUT_MS: '5999' })).to.throw(
      'KAFKA_SESSION_TIMEOUT_MS',
    );
  });
});
