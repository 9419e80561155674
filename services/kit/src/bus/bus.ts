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
  /** Must be idempotent: records are delivered at least once. A throw redelivers the record. */
  handle(record: DeliveredRecord): Promise<void>;
  /**
   * Optional: consecutive records of one topic partition at once, in order, when several are waiting (a backlog, a
   * burst); the bus then calls it instead of `handle`. Same contract: idempotent, and a throw redelivers them all.
   * Lets a consumer write a whole backlog in one transaction instead of one per record.
   */
  handleBatch?(records: DeliveredRecord[]): Promise<void>;
  /** The most records per `handleBatch` call (default 100). */
  maxBatch?: number;
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
