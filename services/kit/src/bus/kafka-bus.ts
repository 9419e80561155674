import { randomUUID } from 'node:crypto';
import {
  Kafka,
  Partitioners,
  type Admin,
  logLevel,
  type Consumer,
  type KafkaConfig,
  type KafkaMessage,
  type Producer,
  type SASLOptions,
} from 'kafkajs';
import type { Logger } from 'pino';
import {
  DEFAULT_MAX_BATCH,
  type BusRecord,
  type DeliveredRecord,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
} from './bus';
import { DEFAULT_RETRY_POLICY, handleBatchWithRetries, handleWithRetries, type RetryPolicy } from './dead-letter';

/**
 * What a broker answers about a topic another client (or this one) has just created, until its metadata has spread:
 * KafkaJS's own `waitForLeaders` gives up on UNKNOWN_TOPIC_OR_PARTITION (kafkajs#815), which a loaded broker answers
 * for a moment after the create; a concurrent creator's TOPIC_ALREADY_EXISTS means the same.
 */
const SETTLING_TOPIC_ERRORS = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'TOPIC_ALREADY_EXISTS']);
const TOPIC_SETTLE_LIMIT_MS = 30_000;
const TOPIC_SETTLE_POLL_MS = 100;

function isSettlingTopicError(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const type = (cause as { type?: unknown }).type;
    if (typeof type === 'string' && SETTLING_TOPIC_ERRORS.has(type)) return true;
  }
  return false;
}

/** Polls the topics' metadata until every partition has a leader (bounded), tolerating the settling answers. */
async function waitForTopicLeaders(admin: Admin, topics: string[]): Promise<void> {
  const deadline = Date.now() + TOPIC_SETTLE_LIMIT_MS;
  for (;;) {
    try {
      const { topics: found } = await admin.fetchTopicMetadata({ topics });
      const led = found.every((topic) => topic.partitions.every((partition) => partition.leader >= 0));
      if (led && found.length === topics.length) return;
    } catch (error) {
      if (!isSettlingTopicError(error) || Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`kafka topics ${topics.join(', ')} have no leaders after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, TOPIC_SETTLE_POLL_MS));
  }
}

function delivered(topic: string, partition: number, message: KafkaMessage): DeliveredRecord {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(message.headers ?? {})) if (v !== undefined) headers[k] = String(v);
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value ?? Buffer.alloc(0),
    headers,
  };
}

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  ssl?: boolean;
  sasl?: SASLOptions;
  /** Topics this service publishes to; created (if missing) at start so the first publish does not race. */
  topics?: string[];
  logger: Logger;
  /** Defaults for every subscription (each may override it). */
  retry?: Partial<RetryPolicy>;
  /** The consumers' session timeout (KAFKA_SESSION_TIMEOUT_MS); Kafka's 30 s when unset. */
  sessionTimeoutMs?: number;
}

/**
 * How long the broker holds a consumer's fetch when there is nothing new: Kafka's own consumer's default
 * (fetch.max.wait.ms), not kafkajs' 5 s. A consumer stops (and notices a rebalance) only once its fetch returns, so
 * this bounds how long a service's shutdown waits per consumer; records that arrive answer the fetch at once either
 * way (docs/decisions/0096).
 */
export const FETCH_MAX_WAIT_MS = 500;

/** Kafka's (and kafkajs') default session timeout. */
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;

/** A consumer's session and its heartbeat: at most a third of the session, as Kafka advises, and kafkajs' 3 s at most. */
export function sessionOptions(sessionTimeoutMs: number): { sessionTimeout: number; heartbeatInterval: number } {
  return { sessionTimeout: sessionTimeoutMs, heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeoutMs / 3)) };
}

const LEVEL_NAMES: Record<number, 'error' | 'warn' | 'info' | 'debug'> = {
  [logLevel.ERROR]: 'error',
  [logLevel.WARN]: 'warn',
  [logLevel.INFO]: 'info',
  [logLevel.DEBUG]: 'debug',
};

/** Kafka through kafkajs: an idempotent producer with acks from all in-sync replicas, one consumer per group. */
export class KafkaBus implements EventBus {
  readonly kind = 'kafka';
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly consumers = new Set<Consumer>();
  private connected = false;
  private readonly knownTopics = new Set<string>();

  constructor(private readonly options: KafkaBusOptions) {
    const config: KafkaConfig = {
      clientId: options.clientId,
      brokers: options.brokers,
      ssl: options.ssl ?? false,
      logLevel: logLevel.WARN,
      logCreator: () => (entry) => {
        const level = LEVEL_NAMES[entry.level] ?? 'info';
        const { message, ...rest } = entry.log;
        options.logger[level]({ kafka: entry.namespace, ...rest }, message);
      },
      retry: { retries: 8, initialRetryTime: 100 },
    };
    if (options.sasl) config.sasl = options.sasl;
    this.kafka = new Kafka(config);
    this.producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 5,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
  }

  async start(): Promise<void> {
    if (this.options.topics?.length) await this.ensureTopics(this.options.topics);
    await this.producer.connect();
    this.connected = true;
  }

  /** Creates the topics that do not exist yet; a topic seen once is not asked about again (publish calls this). */
  async ensureTopics(topics: string[]): Promise<void> {
    if (topics.every((t) => this.knownTopics.has(t))) return;
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const existing = new Set(await admin.listTopics());
      const missing = topics.filter((t) => !existing.has(t));
      if (missing.length) {
        try {
          await admin.createTopics({
            waitForLeaders: true,
            topics: missing.map((topic) => ({ topic, numPartitions: 3 })),
          });
        } catch (error) {
          if (!isSettlingTopicError(error)) throw error;
        }
        await waitForTopicLeaders(admin, missing);
      }
      for (const topic of topics) this.knownTopics.add(topic);
    } finally {
      await admin.disconnect();
    }
  }

  async stop(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.disconnect()));
    this.consumers.clear();
    if (this.connected) await this.producer.disconnect();
    this.connected = false;
  }

  async healthy(): Promise<boolean> {
    if (!this.connected) return false;
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      await admin.describeCluster();
      return true;
    } catch {
      return false;
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  async publish(records: BusRecord[]): Promise<void> {
    if (!records.length) return;
    const topics = [...new Set(records.map((r) => r.topic))];
    await this.ensureTopics(topics);
    const byTopic = new Map<string, BusRecord[]>();
    for (const record of records) byTopic.set(record.topic, [...(byTopic.get(record.topic) ?? []), record]);
    try {
      await this.producer.sendBatch({
        acks: -1,
        topicMessages: [...byTopic].map(([topic, list]) => ({
          topic,
          messages: list.map((r) => ({ key: r.key, value: r.value, headers: r.headers ?? {} })),
        })),
      });
    } catch (error) {
      // A topic deleted meanwhile is created again by the retry (the outbox relay's next pass).
      for (const topic of topics) this.knownTopics.delete(topic);
      throw error;
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    await this.ensureTopics(options.topics);
    const consumer = this.kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      ...sessionOptions(this.options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS),
    });
    await consumer.connect();
    await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning ?? false });
    const assigned = options.awaitAssignment ? this.firstFetchAfterJoin(consumer, options.groupId) : undefined;
    const handle = options.handle.bind(options);
    const handleBatch = options.handleBatch?.bind(options);
    const policy = { ...DEFAULT_RETRY_POLICY, ...this.options.retry, ...options.retry };
    const context = {
      groupId: options.groupId,
      policy,
      logger: this.options.logger,
      publish: (records: BusRecord[]) => this.publish(records),
    };
    if (handleBatch) {
      // Each fetched batch (one partition, in order) in chunks of maxBatch; an offset is resolved (committed) only once
      // its record was handled or dead-lettered, so a crash redelivers from the first record not yet handled.
      const maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
      await consumer.run({
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
          const records = batch.messages.map((message) => delivered(batch.topic, batch.partition, message));
          const running = () => isRunning() && !isStale();
          for (let start = 0; start < records.length && running(); start += maxBatch) {
            const chunk = records.slice(start, start + maxBatch);
            await handleBatchWithRetries(
              chunk,
              handleBatch,
              handle,
              { ...context, beforeRetry: heartbeat, running },
              async (record) => {
                resolveOffset(record.offset);
                await heartbeat();
              },
            );
          }
        },
      });
    } else {
      await consumer.run({
        eachMessage: async ({ topic, partition, message, heartbeat }) =>
          handleWithRetries(delivered(topic, partition, message), handle, { ...context, beforeRetry: heartbeat }),
      });
    }
    await assigned;
    this.consumers.add(consumer);
    return {
      stop: async () => {
        this.consumers.delete(consumer);
        await consumer.disconnect();
      },
    };
  }

  /**
   * The records retained on a topic, from its earliest, up to `limit` (the dlq CLI lists dead letters with it): a
   * throwaway group reads every partition up to the end it had when asked, commits nothing, and is deleted.
   */
  async read(topic: string, limit = 1_000, deadlineMs = 30_000): Promise<DeliveredRecord[]> {
    const admin = this.kafka.admin();
    await admin.connect();
    const groupId = `${this.options.clientId}.reader.${randomUUID()}`;
    try {
      if (!(await admin.listTopics()).includes(topic)) return [];
      const ends = new Map(
        (await admin.fetchTopicOffsets(topic))
          .filter((p) => BigInt(p.high) > BigInt(p.low))
          .map((p) => [p.partition, BigInt(p.high)]),
      );
      if (!ends.size) return [];
      const records: DeliveredRecord[] = [];
      const consumer = this.kafka.consumer({
        groupId,
        allowAutoTopicCreation: false,
        maxWaitTimeInMs: FETCH_MAX_WAIT_MS,
      });
      await consumer.connect();
      try {
        await consumer.subscribe({ topics: [topic], fromBeginning: true });
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`reading ${topic} took over ${deadlineMs} ms`)), deadlineMs);
          const done = () => {
            clearTimeout(timer);
            resolve();
          };
          consumer
            .run({
              autoCommit: false,
              eachMessage: async ({ partition, message }) => {
                if (records.length < limit) records.push(delivered(topic, partition, message));
                if (BigInt(message.offset) + 1n >= (ends.get(partition) ?? 0n)) ends.delete(partition);
                if (!ends.size || records.length >= limit) done();
              },
            })
            .catch(reject);
        });
      } finally {
        await consumer.disconnect();
      }
      return records.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
    } finally {
      await admin.deleteGroups([groupId]).catch(() => undefined);
      await admin.disconnect();
    }
  }

  /** The first fetch after joining the group: the latest offsets are resolved, so later records reach this member. */
  private firstFetchAfterJoin(consumer: Consumer, groupId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const listeners: (() => void)[] = [];
      const done = () => {
        clearTimeout(timer);
        for (const remove of listeners) remove();
        resolve();
      };
      const timer = setTimeout(() => {
        this.options.logger.warn({ groupId }, 'consumer not assigned after 30 s; continuing');
        done();
      }, 30_000);
      listeners.push(
        consumer.on(consumer.events.GROUP_JOIN, () => {
          listeners.push(consumer.on(consumer.events.FETCH_START, done));
        }),
      );
    });
  }
}
