import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { createLogger, eventually, newId, testEnv } from '@svc/kit';
import { partnerConfig } from '../src/config';
import { CONVERSATIONS, type UsageFact } from '../src/domain/usage/facts';
import { periodOf } from '../src/domain/usage/period';
import { UsageRecorder, USAGE_CONSUMER } from '../src/domain/usage/recorder';
import { pruneUsageMarks, usageMarksRetention } from '../src/domain/usage/retention';
import { UsageCounterRow, UsageEventRow } from '../src/entities';
import { closePartnerDb, openPartnerDb } from './partner-db';

const DAY_MS = 24 * 3_600_000;
const RETENTION_MS = partnerConfig(testEnv('partner')).PARTNER_USAGE_DEDUPE_RETENTION_MS;

describe('partner usage: retention of processed-event marks (decision 0270)', () => {
  let dataSource: DataSource;
  let recorder: UsageRecorder;
  const at = new Date();
  const cutoff = new Date(at.getTime() - RETENTION_MS);
  const clientOrgId = newId();

  /** A conversation.created of an event made `daysAgo`, counted (marked) then. */
  async function counted(daysAgo: number): Promise<UsageFact> {
    const made = new Date(at.getTime() - daysAgo * DAY_MS);
    const fact: UsageFact = {
      eventId: newId(made),
      providerOrgId: newId(),
      clientOrgId,
      period: periodOf(made),
      metric: CONVERSATIONS,
      channelKind: '',
      contactId: '',
    };
    expect(await recorder.record([fact])).to.equal(1);
    await dataSource.manager.update(UsageEventRow, { eventId: fact.eventId }, { processedAt: made });
    return fact;
  }

  const marked = async (fact: UsageFact) =>
    dataSource.manager.existsBy(UsageEventRow, { consumer: USAGE_CONSUMER, eventId: fact.eventId });
  const conversations = async (fact: UsageFact) =>
    (
      await dataSource.manager.findOneByOrFail(UsageCounterRow, {
        clientOrgId,
        period: fact.period,
        metric: CONVERSATIONS,
      })
    ).count;

  beforeEach(async () => {
    dataSource = await openPartnerDb('partner_usage_retention');
    recorder = new UsageRecorder(dataSource);
  });
  afterEach(() => closePartnerDb(dataSource));

  it('keeps marks 30 days by default, longer than the buses keep a record (7 days)', () => {
    expect(RETENTION_MS).to.equal(30 * DAY_MS);
  });

  it('prunes marks older than the window, keeps recent ones; a redelivery within the window still counts once', async () => {
    const old = [await counted(40), await counted(31)];
    const recent = [await counted(29), await counted(1), await counted(0)];
    expect(await pruneUsageMarks(dataSource, cutoff, { batch: 1 })).to.equal(2);
    for (const fact of old) expect(await marked(fact), 'old mark').to.equal(false);
    for (const fact of recent) expect(await marked(fact), 'recent mark').to.equal(true);
    const before = await conversations(recent[0] as UsageFact);
    expect(await recorder.record(recent)).to.equal(0);
    expect(await conversations(recent[0] as UsageFact)).to.equal(before);
  });

  it('keeps the mark of an old event counted within the window (relayed late)', async () => {
    const late = await counted(40);
    await dataSource.manager.update(UsageEventRow, { eventId: late.eventId }, { processedAt: at });
    expect(await pruneUsageMarks(dataSource, cutoff)).to.equal(0);
    expect(await recorder.record([late])).to.equal(0);
  });

  it('prunes while the service runs (a pass at start)', async () => {
    const old = await counted(40);
    const recent = await counted(1);
    const retention = usageMarksRetention(dataSource, RETENTION_MS, createLogger('partner', 'silent'), () => at);
    retention.start();
    try {
      await eventually(async () => !(await marked(old)), 10_000, 'the old mark pruned');
      expect(await marked(recent)).to.equal(true);
    } finally {
      await retention.stop();
    }
  });
});
