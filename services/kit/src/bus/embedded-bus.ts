import type { Logger } from 'pino';
import {
  DEFAULT_MAX_BATCH,
  type BusRecord,
  type DeliveredRecord,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
} from './bus';

interface Group {
  offsets: Map<string, number>;
  members: Set<SubscribeOptions>;
  draining: boolean;
}

/**
 * The in-process bus of the embedded default: an append-only log per topic and committed offsets per consumer
 * group, with Kafka's delivery contract (at least once, per-group offsets, redelivery after a failed handler).
 * Written by hand because it is a few dozen lines and every broker library needs a broker; it is not durable,
 * which the transactional outbox makes acceptable for a single-process development install.
 */
export class EmbeddedBus implements EventBus {
  readonly kind = 'embedded';
  private readonly logs = new Map<string, BusRecord[]>();
  private readonly groups = new Map<string, Group>();
  private running = false;

  constructor(private readonly logger?: Logger) {}

  async start(): Promise<void> {
    this.running = true;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.groups.clear();
  }

  async healthy(): Promise<boolean> {
    return this.running;
  }

  async publish(records: BusRecord[]): Promise<void> {
    if (!this.running) throw new Error('event bus is not running');
    const touched = new Set<string>();
    for (const record of records) {
      this.log(record.topic).push(record);
      touched.add(record.topic);
    }
    for (const group of this.groups.values()) {
      if ([...group.members].some((m) => m.topics.some((t) => touched.has(t)))) this.drain(group);
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    let group = this.groups.get(options.groupId);
    if (!group) {
      group = { offsets: new Map(), members: new Set(), draining: false };
      this.groups.set(options.groupId, group);
    }
    for (const topic of options.topics) {
      if (!group.offsets.has(topic)) group.offsets.set(topic, options.fromBeginning ? 0 : this.log(topic).length);
    }
    group.members.add(options);
    this.drain(group);
    const joined = group;
    return { stop: async () => void joined.members.delete(options) };
  }

  private log(topic: string): BusRecord[] {
    let log = this.logs.get(topic);
    if (!log) {
      log = [];
      this.logs.set(topic, log);
    }
    return log;
  }

  /**
   * Delivers pending records to the group in order, one at a time (or, to a member with `handleBatch`, everything
   * pending on the topic up to its `maxBatch`), retrying a failed handler with backoff.
   */
  private drain(group: Group): void {
    if (group.draining) return;
    group.draining = true;
    void (async () => {
      let failures = 0;
      try {
        while (this.running) {
          const next = this.nextFor(group);
          if (!next) break;
          const { member, topic, records, offset } = next;
          try {
            if (member.handleBatch) await member.handleBatch(records);
            else if (records[0]) await member.handle(records[0]);
            group.offsets.set(topic, offset + records.length);
            failures = 0;
          } catch (error) {
            failures += 1;
            this.logger?.warn({ err: error, topic, offset }, 'event handler failed; redelivering');
            await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** failures, 5_000)));
          }
        }
      } finally {
        group.draining = false;
      }
    })();
  }

  private nextFor(
    group: Group,
  ): { member: SubscribeOptions; topic: string; records: DeliveredRecord[]; offset: number } | undefined {
    for (const [topic, offset] of group.offsets) {
      const log = this.log(topic);
      if (offset >= log.length) continue;
      const member = [...group.members].find((m) => m.topics.includes(topic));
      if (!member) continue;
      const count = member.handleBatch ? Math.max(1, member.maxBatch ?? DEFAULT_MAX_BATCH) : 1;
      const records = log
        .slice(offset, offset + count)
        .map((record, n) => ({ ...record, partition: 0, offset: String(offset + n) }));
      return { member, topic, records, offset };
    }
    return undefined;
  }
}
