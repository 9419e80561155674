import type { RetryPolicy } from './dead-letter';

/** One record on a topic. `value` is an encoded `svc.events.v1.Envelope`; `key` keeps one entity's events ordered. */
export interface BusRecord {
  topic: string;
  key: string;
  value: Buffer;
  headers?: Record<string, string>;
}

export interface DeliveredRecord extends BusRecord {
  partition: number;
  offset: string;
}

export interface SubscribeOptions {
  /** Consumers sharing a group split the records; each group sees every record. */
  groupId: string;
  topics: string[];
  /** Start from the earliest retained record when the group has no committed offset. */
  fromBeginning?: boolean;
  /**
   * Must be idempotent: records are delivered at least once. A throw redelivers the record, up to the retry
   * policy's attempts; then it is published to `<topic>.dlq` with the error and the group moves on.
   */
  handle(record: DeliveredRecord): Promise<void>;
  /**
   * Optional: consecutive records of one topic partition at once, in order, when several are waiting (a backlog, a
   * burst); the bus then calls it instead of `handle`. Same contract: idempotent; after a throw the records are
   * retried one at a time through `handle`, so only a record that keeps failing is dead-lettered.
   * Lets a consumer write a whole backlog in one transaction instead of one per record.
   */
  handleBatch?(records: DeliveredRecord[]): Promise<void>;
  /** The most records per `handleBatch` call (default 100). */
  maxBatch?: number;
  /** Overrides the bus's retry policy (attempts and backoff before a record is dead-lettered) for this group. */
  retry?: Partial<RetryPolicy>;
  /**
   * Resolve only once this member has joined its group and started fetching (Kafka; the embedded bus is ready at
   * once). For per-replica groups reading from the latest offset, such as cache invalidation: a record published after
   * `subscribe` resolves is then never missed. Gives up waiting (logging a warning) after 30 s.
   */
  awaitAssignment?: boolean;
}

export const DEFAULT_MAX_BATCH = 100;

export interface Subscription {
  stop(): Promise<void>;
}

/** The event bus every service uses: Kafka in production, an in-process bus on the embedded default. */
export interface EventBus {
  readonly kind: 'kafka' | 'embedded';
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Resolves once every record is acknowledged by all in-sync replicas. */
  publish(records: BusRecord[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  healthy(): Promise<boolean>;
}
