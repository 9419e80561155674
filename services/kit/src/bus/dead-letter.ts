import type { Logger } from 'pino';
import { Counter, metricsRegistry } from '../metrics';
import type { BusRecord, DeliveredRecord } from './bus';

/** How a consumer's failing record is retried before it becomes a dead letter (docs/decisions/0060). */
export interface RetryPolicy {
  /** Attempts in all, the first included; the last failure sends the record to `<topic>.dlq`. */
  attempts: number;
  /** Wait before the second attempt; doubles for each later one. */
  backoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { attempts: 5, backoffMs: 200, maxBackoffMs: 5_000 };

export const DLQ_SUFFIX = '.dlq';

/** Headers a dead letter carries besides the original record's own (`event-id` among them). */
export const DLQ_HEADERS = {
  topic: 'dlq-topic',
  partition: 'dlq-partition',
  offset: 'dlq-offset',
  group: 'dlq-group',
  error: 'dlq-error',
  attempts: 'dlq-attempts',
  failedAt: 'dlq-failed-at',
} as const;

export const dlqTopic = (topic: string): string => topic + DLQ_SUFFIX;

export const deadLetters = new Counter({
  name: 'svc_bus_dead_letters_total',
  help: 'Records a consumer group gave up on after its retries, published to <topic>.dlq.',
  labelNames: ['group', 'topic'] as const,
  registers: [metricsRegistry],
});

export const handlerRetries = new Counter({
  name: 'svc_bus_handler_retries_total',
  help: 'Failed attempts to handle a record that were retried.',
  labelNames: ['group', 'topic'] as const,
  registers: [metricsRegistry],
});

/** The dead letter of a record: the same key and value, the original headers plus where it came from and why. */
export function deadLetterOf(record: DeliveredRecord, groupId: string, error: unknown, attempts: number): BusRecord {
  const message = error instanceof Error ? error.message : String(error);
  return {
    topic: dlqTopic(record.topic),
    key: record.key,
    value: record.value,
    headers: {
      ...record.headers,
      [DLQ_HEADERS.topic]: record.topic,
      [DLQ_HEADERS.partition]: String(record.partition),
      [DLQ_HEADERS.offset]: record.offset,
      [DLQ_HEADERS.group]: groupId,
      // Kafka limits a record's size, not a header's; a stack trace need not travel.
      [DLQ_HEADERS.error]: message.slice(0, 2_000),
      [DLQ_HEADERS.attempts]: String(attempts),
      [DLQ_HEADERS.failedAt]: new Date().toISOString(),
    },
  };
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface DeliveryContext {
  groupId: string;
  policy: RetryPolicy;
  logger?: Logger;
  /** Publishes the dead letter; a failure here leaves the record uncommitted (redelivered). */
  publish(records: BusRecord[]): Promise<void>;
  /** Between attempts (Kafka: heartbeat, so a long backoff does not cost the group membership). */
  beforeRetry?(): Promise<void>;
  /** False once the consumer is stopping: gives up without a dead letter (the record stays uncommitted). */
  running?(): boolean;
}

/**
 * Handles one record with bounded retries; a record still failing after the last attempt is published to
 * `<topic>.dlq` with its error, so one poison record no longer stalls its partition. Resolves once the record may be
 * committed; rejects (leaving it uncommitted) only if the consumer stops meanwhile or the dead letter cannot be
 * published.
 */
export async function handleWithRetries(
  record: DeliveredRecord,
  handle: (record: DeliveredRecord) => Promise<void>,
  context: DeliveryContext,
): Promise<void> {
  const { policy, groupId, logger } = context;
  const attempts = Math.max(1, policy.attempts);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await handle(record);
      return;
    } catch (error) {
      const where = { groupId, topic: record.topic, partition: record.partition, offset: record.offset, attempt };
      if (attempt >= attempts) {
        logger?.error({ err: error, ...where }, 'event handler failed on every attempt; dead-lettering the record');
        await context.publish([deadLetterOf(record, groupId, error, attempt)]);
        deadLetters.inc({ group: groupId, topic: record.topic });
        return;
      }
      if (context.running && !context.running()) throw error;
      handlerRetries.inc({ group: groupId, topic: record.topic });
      logger?.warn({ err: error, ...where }, 'event handler failed; retrying');
      await pause(Math.min(policy.backoffMs * 2 ** (attempt - 1), policy.maxBackoffMs));
      await context.beforeRetry?.();
    }
  }
}

/**
 * A batch handler's failure: the batch is retried one record at a time, so only the record that keeps failing is
 * dead-lettered and its neighbours are handled (each still at least once).
 */
export async function handleBatchWithRetries(
  records: DeliveredRecord[],
  handleBatch: (records: DeliveredRecord[]) => Promise<void>,
  handle: (record: DeliveredRecord) => Promise<void>,
  context: DeliveryContext,
  committed: (record: DeliveredRecord) => Promise<void> = async () => undefined,
): Promise<void> {
  try {
    await handleBatch(records);
    const last = records[records.length - 1];
    if (last) await committed(last);
    return;
  } catch (error) {
    context.logger?.warn(
      { err: error, groupId: context.groupId, topic: records[0]?.topic, records: records.length },
      'event batch failed; retrying its records one at a time',
    );
  }
  for (const record of records) {
    if (context.running && !context.running()) throw new Error('consumer stopped');
    await handleWithRetries(record, handle, context);
    await committed(record);
  }
}
