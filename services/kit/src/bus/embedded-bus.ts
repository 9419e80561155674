import type { Logger } from 'pino';
import {
  DEFAULT_MAX_BATCH,
  type BusRecord,
  type DeliveredRecord,
  type EventBus,
  type SubscribeOptions,
  type Subscription,
} from './bus';
import {
  DEFAULT_RETRY_POLICY,
  handleBatchWithRetries,
  handleWithRetries,
  type DeliveryContext,
  type RetryPolicy,
} from './dead-letter';
import { SqliteLog } from './sqlite-log';

export interface EmbeddedBusOptions {
  /**
   * The SQLite file holding the log (the stack: `<SVC_DATA_DIR>/bus.sqlite`). The default, `:memory:`, is for unit
   * tests only: a restart loses every record and offset.
   */
  file?: string;
  logger?: Logger;
  /** Defaults for every subscription (each may override it). */
  retry?: Partial<RetryPolicy>;
  /**
   * How often every group looks for records it was not told about: appended by another process (the dlq CLI's
   * redrive) or left when a consumer stopped mid-record.
   */
  pollMs?: number;
  /** Idle groups whose consumers are gone, and records on topics no group reads, are kept this long (7 days). */
  retentionMs?: number;
  /** How often the retention is applied (hourly). */
  expireEveryMs?: number;
  /**
   * How often the records every group of a topic has committed are deleted (every second). 0 deletes them at each
   * commit, one more write per delivered record (the bench's baseline; docs/decisions/0095).
   */
  trimEveryMs?: number;
  /**
   * False for a tool opening the log of a running stack (the dlq CLI): no polling and no expiry, which only the
   * process that knows which groups are live may run.
   */
  owner?: boolean;
}

interface Group {
  id: string;
  members: Set<SubscribeOptions>;
  draining: Promise<void> | undefined;
  /** Set when records arrive while a drain is under way, so it looks again before it ends. */
  dirty: boolean;
  /**
   * The group's next offset per topic, as committed: this process is the only one that commits (the log's owner), so
   * the log need not be asked before each delivery.
   */
  positions: Map<string, number>;
}

const HOUR_MS = 3_600_000;

/** How often the records every group of a topic has committed are deleted, unless `trimEveryMs` says otherwise. */
export const DEFAULT_TRIM_EVERY_MS = 1_000;

/**
 * The bus of the embedded default: a durable log in SQLite (`SqliteLog`) with Kafka's delivery contract — at least
 * once, committed offsets per consumer group, records of one topic in order (one partition per topic), a failing
 * record retried with backoff and then dead-lettered to `<topic>.dlq`. Written by hand because it is a small layer
 * over the SQLite the embedded default already runs on, and every broker library needs a broker.
 */
export class EmbeddedBus implements EventBus {
  readonly kind = 'embedded';
  private log: SqliteLog | undefined;
  private readonly groups = new Map<string, Group>();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private trimTimer: NodeJS.Timeout | undefined;
  private lastExpiry = 0;
  /** Topics with commits since their last trim. */
  private readonly untrimmed = new Set<string>();
  /**
   * The log's next offset per topic as this process last saw it: a group whose position is there has nothing to read.
   * Moved by this process's appends at once, by other processes' (the dlq CLI's redrive) at the next poll.
   */
  private ends = new Map<string, number>();

  constructor(private readonly options: EmbeddedBusOptions = {}) {}

  async start(): Promise<void> {
    this.log ??= new SqliteLog(this.options.file ?? ':memory:');
    this.running = true;
    if (this.options.owner === false) return;
    this.ends = this.log.ends();
    // Not at once: only once this process's consumers have subscribed does it know which groups are live.
    this.lastExpiry = Date.now();
    this.timer = setInterval(() => {
      if (this.log) this.ends = this.log.ends();
      for (const group of this.groups.values()) this.drain(group);
      if (Date.now() - this.lastExpiry > (this.options.expireEveryMs ?? HOUR_MS)) this.expire();
    }, this.options.pollMs ?? 1_000);
    this.timer.unref();
    // What a previous process committed but did not live to trim (kill -9) goes at the first trim.
    for (const topic of this.ends.keys()) this.untrimmed.add(topic);
    const trimEveryMs = this.options.trimEveryMs ?? DEFAULT_TRIM_EVERY_MS;
    if (trimEveryMs > 0) {
      this.trimTimer = setInterval(() => this.trim(), trimEveryMs);
      this.trimTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    if (this.trimTimer) clearInterval(this.trimTimer);
    await Promise.all([...this.groups.values()].map((group) => group.draining));
    this.groups.clear();
    if (this.options.owner !== false) this.trim();
    this.untrimmed.clear();
    this.log?.close();
    this.log = undefined;
  }

  async healthy(): Promise<boolean> {
    return this.running;
  }

  /** Resolves once the records are committed to the log (one transaction), so the outbox may delete its rows. */
  async publish(records: BusRecord[]): Promise<void> {
    if (!this.running || !this.log) throw new Error('event bus is not running');
    if (!records.length) return;
    for (const [topic, end] of this.log.append(records)) this.ends.set(topic, end);
    const touched = new Set(records.map((r) => r.topic));
    for (const group of this.groups.values()) {
      if ([...group.members].some((m) => m.topics.some((t) => touched.has(t)))) this.drain(group);
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const log = this.requireLog();
    let group = this.groups.get(options.groupId);
    if (!group) {
      group = { id: options.groupId, members: new Set(), draining: undefined, dirty: false, positions: new Map() };
      this.groups.set(options.groupId, group);
    }
    for (const topic of options.topics)
      group.positions.set(topic, log.join(options.groupId, topic, options.fromBeginning ?? false));
    group.members.add(options);
    this.drain(group);
    const joined = group;
    return { stop: async () => void joined.members.delete(options) };
  }

  /** The records retained on a topic, from its earliest (the dlq CLI lists dead letters with it). */
  async read(topic: string, limit = 1_000): Promise<DeliveredRecord[]> {
    return this.requireLog().read(topic, 0, limit);
  }

  /** Removes one record from a topic's log (a dead letter once it was redriven). */
  async remove(record: Pick<DeliveredRecord, 'topic' | 'offset'>): Promise<boolean> {
    return this.requireLog().remove(record.topic, Number(record.offset));
  }

  private requireLog(): SqliteLog {
    if (!this.running || !this.log) throw new Error('event bus is not running');
    return this.log;
  }

  /** Deletes what every group has committed on the topics committed to since the last trim. */
  private trim(): void {
    if (!this.log || !this.untrimmed.size) return;
    this.log.trim(this.untrimmed);
    this.untrimmed.clear();
  }

  /** `log`: the one the delivery read from, so a record handled while the bus stops is still committed. */
  private commit(log: SqliteLog, group: Group, topic: string, nextOffset: number): void {
    log.commit(group.id, topic, nextOffset);
    group.positions.set(topic, Math.max(group.positions.get(topic) ?? 0, nextOffset));
    this.untrimmed.add(topic);
    if (this.options.trimEveryMs === 0) this.trim();
  }

  private expire(): void {
    this.lastExpiry = Date.now();
    const live = [...this.groups.values()].filter((g) => g.members.size).map((g) => g.id);
    this.log?.expire(this.options.retentionMs ?? 7 * 24 * HOUR_MS, live);
  }

  /**
   * Delivers the group's pending records in order, one at a time (or, to a member with `handleBatch`, everything
   * pending on the topic up to its `maxBatch`), committing after each; failures are retried, then dead-lettered.
   */
  private drain(group: Group): void {
    if (group.draining) {
      group.dirty = true;
      return;
    }
    group.draining = (async () => {
      try {
        do {
          group.dirty = false;
          while (this.running && (await this.deliverNext(group)));
        } while (this.running && group.dirty);
      } catch (error) {
        // The consumer stopped mid-record, or the dead letter could not be stored: the record stays uncommitted and
        // the next poll delivers it again.
        if (this.running) this.options.logger?.warn({ err: error, groupId: group.id }, 'event delivery interrupted');
      } finally {
        group.draining = undefined;
      }
    })();
  }

  /** Delivers the next pending records of one topic; false when the group has nothing pending. */
  private async deliverNext(group: Group): Promise<boolean> {
    const log = this.requireLog();
    for (const member of group.members) {
      for (const topic of member.topics) {
        let from = group.positions.get(topic);
        if (from === undefined) {
          from = log.join(group.id, topic, member.fromBeginning ?? false);
          group.positions.set(topic, from);
        }
        const end = this.ends.get(topic);
        if (end !== undefined && from >= end) continue;
        const count = member.handleBatch ? Math.max(1, member.maxBatch ?? DEFAULT_MAX_BATCH) : 1;
        const records = log.read(topic, from, count);
        if (!records.length) continue;
        const context: DeliveryContext = {
          groupId: group.id,
          policy: { ...DEFAULT_RETRY_POLICY, ...this.options.retry, ...member.retry },
          publish: (deadLetters) => this.publish(deadLetters),
          running: () => this.running && group.members.has(member),
          ...(this.options.logger ? { logger: this.options.logger } : {}),
        };
        const commit = async (record: DeliveredRecord) => this.commit(log, group, topic, Number(record.offset) + 1);
        const handle = member.handle.bind(member);
        const handleBatch = member.handleBatch?.bind(member);
        if (handleBatch) await handleBatchWithRetries(records, handleBatch, handle, context, commit);
        else if (records[0]) {
          await handleWithRetries(records[0], handle, context);
          await commit(records[0]);
        }
        return true;
      }
    }
    return false;
  }
}
