import { In, type DataSource, type EntityManager } from 'typeorm';
import { familyOf, isDuplicateKeyError, now } from '@svc/kit';
import { UsageContactRow, UsageCounterRow, UsageEventRow } from '../../entities';
import type { UsageFact } from './facts';

/** The consumer name of the usage rollup's rows in `partner_usage_events`. */
export const USAGE_CONSUMER = 'usage';

/** Attempts of a batch that MariaDB chose as a deadlock victim (concurrent consumers incrementing the same rows). */
const DEADLOCK_ATTEMPTS = 5;

function isDeadlock(error: unknown): boolean {
  const e = error as { errno?: number; driverError?: { errno?: number } };
  return (e.driverError ?? e).errno === 1213;
}

/**
 * Adds facts to the monthly counters exactly once per event id: the event ids go into `partner_usage_events` in the
 * same transaction as the increments, so a redelivered event (at-least-once delivery, a consumer killed before it
 * committed its offset) finds its row and adds nothing, and a killed transaction adds nothing either. Increments are
 * `count = count + n` in the database, never read-modify-write, so concurrent consumers add up.
 */
export class UsageRecorder {
  constructor(
    private readonly dataSource: DataSource,
    private readonly consumer = USAGE_CONSUMER,
  ) {}

  /** Answers how many of the facts were new (counted now). */
  async record(facts: UsageFact[]): Promise<number> {
    if (!facts.length) return 0;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.dataSource.transaction((manager) => this.apply(manager, facts));
      } catch (error) {
        if (isDeadlock(error) && attempt < DEADLOCK_ATTEMPTS) continue;
        if (!isDuplicateKeyError(error)) throw error;
        // A concurrent consumer of a redelivery committed (some of) these events first: each on its own now.
        if (facts.length === 1) return 0;
        let counted = 0;
        for (const fact of facts) counted += await this.record([fact]);
        return counted;
      }
    }
  }

  private async apply(manager: EntityManager, facts: UsageFact[]): Promise<number> {
    const ids = [...new Set(facts.map((fact) => fact.eventId))];
    const seen = new Set(
      (
        await manager.find(UsageEventRow, {
          select: { eventId: true },
          where: { consumer: this.consumer, eventId: In(ids) },
        })
      ).map((row) => row.eventId),
    );
    // A redelivered event counts nothing; one delivered twice within the batch counts once.
    const fresh: UsageFact[] = [];
    for (const fact of facts) {
      if (seen.has(fact.eventId)) continue;
      seen.add(fact.eventId);
      fresh.push(fact);
    }
    if (!fresh.length) return 0;
    const at = now();
    await manager.insert(
      UsageEventRow,
      fresh.map((fact) => ({ consumer: this.consumer, eventId: fact.eventId, processedAt: at })),
    );
    await this.increment(manager, fresh);
    const contacts = fresh
      .filter((fact) => fact.contactId)
      .map((fact) => ({
        clientOrgId: fact.clientOrgId,
        period: fact.period,
        contactId: fact.contactId,
        providerOrgId: fact.providerOrgId,
      }));
    if (contacts.length) {
      await manager.createQueryBuilder().insert().into(UsageContactRow).values(contacts).orIgnore().execute();
    }
    return fresh.length;
  }

  /** One upsert adding each counter's increment, counters in key order (concurrent batches lock rows alike). */
  private async increment(manager: EntityManager, facts: UsageFact[]): Promise<void> {
    const counters = new Map<string, { fact: UsageFact; n: number }>();
    for (const fact of facts) {
      const key = [fact.clientOrgId, fact.period, fact.metric, fact.channelKind].join('\u0000');
      const counter = counters.get(key);
      if (counter) counter.n += 1;
      else counters.set(key, { fact, n: 1 });
    }
    const rows = [...counters.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
    const metadata = this.dataSource.getMetadata(UsageCounterRow);
    const escape = (property: keyof UsageCounterRow) => {
      const column = metadata.findColumnWithPropertyName(property);
      if (!column) throw new Error(`partner_usage_counters has no ${property}`);
      return this.dataSource.driver.escape(column.databaseName);
    };
    const keys = (['clientOrgId', 'period', 'metric', 'channelKind'] as const).map(escape);
    const count = escape('count');
    const columns = [...keys, escape('providerOrgId'), count];
    const conflict =
      familyOf(this.dataSource) === 'sqlite'
        ? `ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${count} = ${count} + excluded.${count}`
        : `ON DUPLICATE KEY UPDATE ${count} = ${count} + VALUES(${count})`;
    await manager.query(
      `INSERT INTO ${this.dataSource.driver.escape(metadata.tableName)} (${columns.join(', ')}) VALUES ${rows
        .map(() => '(?, ?, ?, ?, ?, ?)')
        .join(', ')} ${conflict}`,
      rows.flatMap(({ fact, n }) => [
        fact.clientOrgId,
        fact.period,
        fact.metric,
        fact.channelKind,
        fact.providerOrgId,
        n,
      ]),
    );
  }
}
