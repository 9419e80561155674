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
}

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
