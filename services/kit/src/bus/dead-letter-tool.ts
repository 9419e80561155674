import type { BusRecord, DeliveredRecord } from './bus';
import { DLQ_HEADERS, dlqTopic } from './dead-letter';
import type { EmbeddedBus } from './embedded-bus';
import type { KafkaBus } from './kafka-bus';

/** A bus whose topics can be read back: both implementations. */
export type ReadableBus = EmbeddedBus | KafkaBus;

export interface DeadLetter {
  eventId: string;
  topic: string;
  group: string;
  error: string;
  attempts: number;
  failedAt: string;
  /** Where the dead letter sits in `<topic>.dlq`. */
  partition: number;
  offset: string;
  record: DeliveredRecord;
}

function deadLetterOf(record: DeliveredRecord): DeadLetter {
  const h = record.headers ?? {};
  return {
    eventId: h['event-id'] ?? '',
    topic: h[DLQ_HEADERS.topic] ?? '',
    group: h[DLQ_HEADERS.group] ?? '',
    error: h[DLQ_HEADERS.error] ?? '',
    attempts: Number(h[DLQ_HEADERS.attempts] ?? 0),
    failedAt: h[DLQ_HEADERS.failedAt] ?? '',
    partition: record.partition,
    offset: record.offset,
    record,
  };
}

/** The dead letters of a topic (`topic` as published, prefix included), oldest first. */
export async function listDeadLetters(bus: ReadableBus, topic: string, limit?: number): Promise<DeadLetter[]> {
  return (await bus.read(dlqTopic(topic), limit)).map(deadLetterOf);
}

/** The original record: its topic, key, value and headers, without what dead-lettering added. */
export function originalOf(letter: DeadLetter): BusRecord {
  const dlqHeaders = new Set<string>(Object.values(DLQ_HEADERS));
  const headers = Object.fromEntries(
    Object.entries(letter.record.headers ?? {}).filter(([name]) => !dlqHeaders.has(name)),
  );
  return { topic: letter.topic, key: letter.record.key, value: letter.record.value, headers };
}

/**
 * Publishes dead letters back to their topic (every one, or those whose event id is in `eventIds`), where every
 * group that reads it receives them again; consumers dedupe by event id, so groups that had handled one are not
 * affected. The embedded bus then removes them from `<topic>.dlq`; Kafka keeps them until its retention.
 */
export async function redriveDeadLetters(bus: ReadableBus, topic: string, eventIds?: string[]): Promise<DeadLetter[]> {
  const wanted = eventIds?.length ? new Set(eventIds) : undefined;
  const letters = (await listDeadLetters(bus, topic)).filter((l) => !wanted || wanted.has(l.eventId));
  if (!letters.length) return [];
  await bus.publish(letters.map(originalOf));
  if (bus.kind === 'embedded') for (const letter of letters) await bus.remove(letter.record);
  return letters;
}
