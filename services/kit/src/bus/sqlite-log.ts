import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BusRecord, DeliveredRecord } from './bus';

/** The part of better-sqlite3's API the log uses (the kit carries no @types for it). */
interface Statement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}
interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  pragma(source: string): unknown;
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BetterSqlite3 = require('better-sqlite3') as new (file: string) => Database;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS bus_topics (
  topic TEXT PRIMARY KEY,
  next_offset INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS bus_records (
  topic TEXT NOT NULL,
  seq INTEGER NOT NULL,
  key TEXT NOT NULL,
  value BLOB NOT NULL,
  headers TEXT NOT NULL,
  appended_at INTEGER NOT NULL,
  PRIMARY KEY (topic, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS bus_group_offsets (
  group_id TEXT NOT NULL,
  topic TEXT NOT NULL,
  next_offset INTEGER NOT NULL,
  committed_at INTEGER NOT NULL,
  PRIMARY KEY (group_id, topic)
) WITHOUT ROWID;
`;

interface RecordRow {
  seq: number;
  key: string;
  value: Buffer;
  headers: string;
}

/**
 * The embedded bus's log in one SQLite file: per topic an append-only sequence of offsets, per consumer group and
 * topic the next offset to deliver. An append or a commit is one transaction, so a record a publisher was told is
 * stored survives `kill -9`, and a group resumes after a restart where it had committed (docs/decisions/0060).
 * `:memory:` keeps the same log in memory (unit tests).
 */
export class SqliteLog {
  private readonly db: Database;
  private readonly statements: {
    topic: Statement;
    createTopic: Statement;
    advanceTopic: Statement;
    insert: Statement;
    read: Statement;
    firstOffset: Statement;
    groupOffset: Statement;
    joinGroup: Statement;
    commit: Statement;
    trimTopic: Statement;
    ends: Statement;
    expireGroups: Statement;
    expireUnconsumed: Statement;
    deleteRecord: Statement;
  };
  /** Appends the records in one transaction; returns the next offset of each topic appended to. */
  readonly append: (records: BusRecord[]) => Map<string, number>;

  constructor(file: string) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    this.db = new BetterSqlite3(file);
    this.db.pragma('journal_mode = WAL');
    // WAL with NORMAL: a commit is in the OS before `append` returns, so it survives the process being killed; only
    // an OS crash or power loss can lose the last commits (Kafka's acks=all, unflushed, has the same window).
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    const s = (sql: string) => this.db.prepare(sql);
    this.statements = {
      topic: s('SELECT next_offset AS next FROM bus_topics WHERE topic = ?'),
      createTopic: s('INSERT OR IGNORE INTO bus_topics (topic, next_offset) VALUES (?, 0)'),
      advanceTopic: s('UPDATE bus_topics SET next_offset = ? WHERE topic = ?'),
      insert: s('INSERT INTO bus_records (topic, seq, key, value, headers, appended_at) VALUES (?, ?, ?, ?, ?, ?)'),
      read: s('SELECT seq, key, value, headers FROM bus_records WHERE topic = ? AND seq >= ? ORDER BY seq LIMIT ?'),
      firstOffset: s('SELECT MIN(seq) AS first FROM bus_records WHERE topic = ?'),
      groupOffset: s('SELECT next_offset AS next FROM bus_group_offsets WHERE group_id = ? AND topic = ?'),
      joinGroup: s(
        'INSERT OR IGNORE INTO bus_group_offsets (group_id, topic, next_offset, committed_at) VALUES (?, ?, ?, ?)',
      ),
      commit: s(
        'UPDATE bus_group_offsets SET next_offset = MAX(next_offset, ?), committed_at = ? WHERE group_id = ? AND topic = ?',
      ),
      trimTopic: s(
        `DELETE FROM bus_records WHERE topic = @topic
           AND seq < (SELECT MIN(next_offset) FROM bus_group_offsets WHERE topic = @topic)`,
      ),
      ends: s('SELECT topic, next_offset AS next FROM bus_topics'),
      expireGroups: s(
        'DELETE FROM bus_group_offsets WHERE committed_at < ? AND group_id NOT IN (SELECT value FROM json_each(?))',
      ),
      expireUnconsumed: s(
        `DELETE FROM bus_records WHERE appended_at < ?
           AND topic NOT IN (SELECT DISTINCT topic FROM bus_group_offsets)`,
      ),
      deleteRecord: s('DELETE FROM bus_records WHERE topic = ? AND seq = ?'),
    };
    this.append = this.db.transaction((records: BusRecord[]) => {
      const now = Date.now();
      const next = new Map<string, number>();
      for (const record of records) {
        let offset = next.get(record.topic);
        if (offset === undefined) offset = this.nextOffset(record.topic);
        this.statements.insert.run(
          record.topic,
          offset,
          record.key,
          record.value,
          JSON.stringify(record.headers ?? {}),
          now,
        );
        next.set(record.topic, offset + 1);
      }
      for (const [topic, offset] of next) this.statements.advanceTopic.run(offset, topic);
      return next;
    });
  }

  /** The offset the next record of the topic gets (offsets stay increasing when records are trimmed). */
  nextOffset(topic: string): number {
    this.statements.createTopic.run(topic);
    return (this.statements.topic.get(topic) as { next: number }).next;
  }

  /**
   * The group's next offset on the topic; a group new to the topic starts at the end, or at the earliest retained
   * record with `fromBeginning`.
   */
  join(groupId: string, topic: string, fromBeginning: boolean): number {
    const start = fromBeginning ? this.firstOffset(topic) : this.nextOffset(topic);
    this.statements.joinGroup.run(groupId, topic, start, Date.now());
    return this.committed(groupId, topic) ?? start;
  }

  committed(groupId: string, topic: string): number | undefined {
    return (this.statements.groupOffset.get(groupId, topic) as { next: number } | undefined)?.next;
  }

  read(topic: string, from: number, limit: number): DeliveredRecord[] {
    return (this.statements.read.all(topic, from, limit) as RecordRow[]).map((row) => ({
      topic,
      partition: 0,
      offset: String(row.seq),
      key: row.key,
      value: row.value,
      headers: JSON.parse(row.headers) as Record<string, string>,
    }));
  }

  /**
   * Commits the group's position (never backwards). The records it passed stay until `trim`. A group forgotten
   * meanwhile (`expire`) is recorded again where it committed, not lost.
   */
  commit(groupId: string, topic: string, nextOffset: number): void {
    const now = Date.now();
    if (this.statements.commit.run(nextOffset, now, groupId, topic).changes === 0)
      this.statements.joinGroup.run(groupId, topic, nextOffset, now);
  }

  /**
   * Deletes the records of each topic that every group of the topic has committed past, in one transaction. Only
   * records below the lowest committed offset go, so whenever it runs it never takes one a group has still to handle.
   */
  trim(topics: Iterable<string>): void {
    const list = [...topics];
    if (list.length === 1) this.statements.trimTopic.run({ topic: list[0] });
    else
      this.db.transaction(() => {
        for (const topic of list) this.statements.trimTopic.run({ topic });
      })();
  }

  /** The next offset of every topic the log has held a record of (appends of other processes included). */
  ends(): Map<string, number> {
    return new Map(
      (this.statements.ends.all() as { topic: string; next: number }[]).map((row) => [row.topic, row.next]),
    );
  }

  /**
   * Forgets groups idle (no commit) for the retention whose consumers are gone, such as a per-process group of a
   * previous run, so they no longer hold records back; drops records older than the retention on topics no group
   * reads (dead letters among them). Kafka's defaults for both are 7 days.
   */
  expire(retentionMs: number, liveGroups: string[]): void {
    const before = Date.now() - retentionMs;
    this.db.transaction(() => {
      const topics = this.db.prepare('SELECT DISTINCT topic FROM bus_group_offsets').all() as { topic: string }[];
      this.statements.expireGroups.run(before, JSON.stringify(liveGroups));
      for (const { topic } of topics) this.statements.trimTopic.run({ topic });
      this.statements.expireUnconsumed.run(before);
    })();
  }

  remove(topic: string, offset: number): boolean {
    return this.statements.deleteRecord.run(topic, offset).changes > 0;
  }

  close(): void {
    this.db.close();
  }

  private firstOffset(topic: string): number {
    const first = (this.statements.firstOffset.get(topic) as { first: number | null }).first;
    return first ?? this.nextOffset(topic);
  }
}
