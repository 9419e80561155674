import { Entity, Index, type DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { Envelope } from '@svc/proto/events/v1';
import { DateTimeColumn, IdColumn, LongTextColumn, TextColumn } from '../db/columns';
import { familyOf } from '../db/data-source';
import { entitySql, executeStatement } from '../db/sql';
import { newId } from '../ids';
import type { EventBus } from './bus';
import { captureRequestContext, detached } from '../tracing/request-context';

/** An event committed with the state change that caused it, waiting to be relayed to the bus. */
@Entity('outbox_events')
@Index('ix_outbox_created', ['createdAt', 'id'])
export class OutboxEvent {
  @IdColumn() id!: string;
  @TextColumn(200) topic!: string;
  @TextColumn(100, { name: 'partition_key' }) partitionKey!: string;
  /** Base64 of the encoded Envelope: portable across both database families. */
  @LongTextColumn() payload!: string;
  @DateTimeColumn({ name: 'created_at' }) createdAt!: Date;
}

export interface NewEvent {
  topic: string;
  key: string;
  type: string;
  orgId: string;
  payload: Omit<Envelope, 'id' | 'type' | 'orgId' | 'occurredAt' | 'requestContext'>;
}

/**
 * One writer for every envelope this process encodes: `finish()` hands out a copy of the bytes and keeps the buffer,
 * where a writer per event allocated and grew a fresh one each time (a third of an event's encoding cost).
 */
const envelopeWriter = new BinaryWriter();

function encodeEnvelope(envelope: Envelope): string {
  try {
    const bytes = Envelope.encode(envelope, envelopeWriter).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
  } catch (error) {
    envelopeWriter.finish(); // an encoding that failed half-way must not leave its bytes for the next one
    throw error;
  }
}

/** Adds events inside the caller's transaction; they become visible to the relay only if it commits. */
export async function enqueueEvents(manager: EntityManager, events: NewEvent[], at = new Date()): Promise<Envelope[]> {
  const envelopes: Envelope[] = [];
  // The request recording the events travels with them: their consumers join its trace and log its id.
  const requestContext = captureRequestContext();
  const rows = events.map((event): OutboxEvent => {
    const envelope: Envelope = {
      ...event.payload,
      id: newId(at),
      type: event.type,
      orgId: event.orgId,
      occurredAt: at.toISOString(),
      requestContext,
    };
    envelopes.push(envelope);
    return {
      id: envelope.id,
      topic: event.topic,
      partitionKey: event.key,
      payload: encodeEnvelope(envelope),
      createdAt: at,
    };
  });
  // One multi-row INSERT written from the metadata (db/sql.ts): no query builder on every producer's hot path.
  await entitySql(manager.connection, OutboxEvent).insert(manager, rows);
  return envelopes;
}

const after = (ms: number) =>
  new Promise<void>((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

/**
 * How long a nudged relay waits before its pass: a pass costs a transaction of its own (SELECT, DELETE, COMMIT), so
 * under load the events of the commits landing meanwhile share it (docs/performance.md, "Inbound webhooks").
 */
export const DEFAULT_RELAY_COALESCE_MS = 5;

/**
 * Relays committed outbox rows to the bus in creation order and deletes them once acknowledged. On MySQL several
 * replicas relay at once without double-sending by locking with SKIP LOCKED; consumers dedupe on the event id in any
 * case, so a crash between publish and delete only causes a redelivery.
 */
export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private pass: Promise<void> = Promise.resolve();
  private again = false;

  constructor(
    private readonly dataSource: DataSource,
    private readonly bus: EventBus,
    private readonly logger: Logger,
    private readonly options: {
      intervalMs?: number;
      batchSize?: number;
      topicPrefix?: string;
      coalesceMs?: number;
    } = {},
  ) {}

  start(): void {
    this.running = true;
    this.timer = detached(() => setInterval(() => this.nudge(), this.options.intervalMs ?? 500));
    this.timer.unref();
    this.nudge();
  }

  /** Relays soon: called after a commit that enqueued events, so latency is not the poll interval. */
  nudge(): void {
    if (!this.running) return;
    if (this.again) return;
    this.again = true;
    // Detached from the request that nudged: a pass relays many requests' events, each carrying its own context.
    detached(() => this.schedulePass());
  }

  private schedulePass(): void {
    // A few ms later: commits that land meanwhile (concurrent requests, other group commits) share the pass.
    this.pass = this.pass
      .then(() => after(this.options.coalesceMs ?? DEFAULT_RELAY_COALESCE_MS))
      .then(async () => {
        this.again = false;
        try {
          // A short batch means nothing committed before its SELECT is left; later commits nudge again.
          while (this.running && (await this.relayBatch()) >= this.batchSize);
        } catch (error) {
          this.logger.warn({ err: error }, 'outbox relay failed; will retry');
        }
      });
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    await this.pass;
  }

  /** Waits until everything committed so far has been relayed (tests and shutdown). */
  async flush(): Promise<void> {
    while ((await this.dataSource.getRepository(OutboxEvent).count()) > 0) {
      await this.relayBatch();
    }
  }

  private get batchSize(): number {
    return this.options.batchSize ?? 200;
  }

  private async relayBatch(): Promise<number> {
    const batchSize = this.batchSize;
    const mysql = familyOf(this.dataSource) === 'mysql';
    // READ COMMITTED: the row locks taken by SKIP LOCKED must not become gap locks that block producers' inserts.
    const run = <T>(work: (manager: EntityManager) => Promise<T>) =>
      mysql ? this.dataSource.transaction('READ COMMITTED', work) : this.dataSource.transaction(work);
    const outbox = entitySql(this.dataSource, OutboxEvent);
    return run(async (manager) => {
      const rows = await outbox.select(
        manager,
        `ORDER BY ${outbox.column('createdAt')} ASC, ${outbox.column('id')} ASC LIMIT ${batchSize}` +
          (mysql ? ' FOR UPDATE SKIP LOCKED' : ''),
        [],
      );
      if (!rows.length) return 0;
      const prefix = this.options.topicPrefix ?? '';
      await this.bus.publish(
        rows.map((row) => ({
          topic: prefix + row.topic,
          key: row.partitionKey,
          value: Buffer.from(row.payload, 'base64'),
          headers: { 'event-id': row.id },
        })),
      );
      await executeStatement(
        manager,
        `DELETE FROM ${outbox.table} WHERE ${outbox.column('id')} IN (${rows.map(() => '?').join(', ')})`,
        rows.map((r) => r.id),
      );
      return rows.length;
    });
  }
}
