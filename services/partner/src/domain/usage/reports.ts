import { In, type DataSource } from 'typeorm';
import { InvalidArgument, NotFound, isId, now, type Principal } from '@svc/kit';
import type { PartnerChannelUsage, PartnerUsageCounts, PartnerUsagePeriod } from '@svc/proto/partner/v1/partner_usage';
import { UsageContactRow, UsageCounterRow } from '../../entities';
import { requirePartnerAdmin } from '../partner-admin';
import { CONVERSATIONS, MESSAGES_IN, MESSAGES_OUT } from './facts';
import { boundsOf, historyPeriods, periodOf, type Period } from './period';

function emptyCounts(): PartnerUsageCounts {
  return { messagesIn: 0, messagesOut: 0, channels: [], activeContacts: 0, conversations: 0 };
}

function addCounter(counts: PartnerUsageCounts, metric: string, channelKind: string, n: number): void {
  if (metric === CONVERSATIONS) {
    counts.conversations += n;
    return;
  }
  let channel: PartnerChannelUsage | undefined = counts.channels.find((c) => c.channelKind === channelKind);
  if (!channel) {
    channel = { channelKind, messagesIn: 0, messagesOut: 0 };
    counts.channels.push(channel);
    counts.channels.sort((a, b) => (a.channelKind < b.channelKind ? -1 : a.channelKind > b.channelKind ? 1 : 0));
  }
  if (metric === MESSAGES_IN) {
    channel.messagesIn += n;
    counts.messagesIn += n;
  } else if (metric === MESSAGES_OUT) {
    channel.messagesOut += n;
    counts.messagesOut += n;
  }
}

/** The usage a provider reads: its client orgs' counters, month by month (docs/decisions/0250). */
export class UsageReports {
  constructor(
    private readonly dataSource: DataSource,
    /** The provider of an org ('' when none): a client org filter must name one of the caller's client orgs. */
    private readonly providerOf: (orgId: string) => Promise<string>,
  ) {}

  async summary(principal: Principal, clientOrgId: string | undefined): Promise<PartnerUsagePeriod> {
    const [period] = await this.periods(principal, clientOrgId, [periodOf(now())]);
    if (!period) throw new Error('one period asked, none answered');
    return period;
  }

  async history(
    principal: Principal,
    clientOrgId: string | undefined,
    from: string | undefined,
    to: string | undefined,
  ): Promise<PartnerUsagePeriod[]> {
    requirePartnerAdmin(principal);
    return this.periods(principal, clientOrgId, historyPeriods(from, to, periodOf(now())));
  }

  private async periods(
    principal: Principal,
    clientOrgId: string | undefined,
    periods: Period[],
  ): Promise<PartnerUsagePeriod[]> {
    const providerOrgId = requirePartnerAdmin(principal);
    if (clientOrgId !== undefined) await this.requireClientOrg(providerOrgId, clientOrgId);
    const where = { providerOrgId, period: In(periods), ...(clientOrgId === undefined ? {} : { clientOrgId }) };
    const counters = await this.dataSource.manager.find(UsageCounterRow, { where });
    const contacts = await this.dataSource.manager
      .createQueryBuilder(UsageContactRow, 'row')
      .select('row.clientOrgId', 'clientOrgId')
      .addSelect('row.period', 'period')
      .addSelect('COUNT(*)', 'n')
      .where('row.providerOrgId = :providerOrgId AND row.period IN (:...periods)', { providerOrgId, periods })
      .andWhere(clientOrgId === undefined ? '1 = 1' : 'row.clientOrgId = :clientOrgId', { clientOrgId })
      .groupBy('row.clientOrgId')
      .addGroupBy('row.period')
      .getRawMany<{ clientOrgId: string; period: string; n: number | string }>();
    const byPeriod = new Map(periods.map((period) => [period, new Map<string, PartnerUsageCounts>()]));
    const countsOf = (period: string, org: string): PartnerUsageCounts => {
      const orgs = byPeriod.get(period) as Map<string, PartnerUsageCounts>;
      let counts = orgs.get(org);
      if (!counts) orgs.set(org, (counts = emptyCounts()));
      return counts;
    };
    if (clientOrgId !== undefined) for (const period of periods) countsOf(period, clientOrgId);
    for (const row of counters)
      addCounter(countsOf(row.period, row.clientOrgId), row.metric, row.channelKind, row.count);
    for (const row of contacts) countsOf(row.period, row.clientOrgId).activeContacts += Number(row.n);
    return periods.map((period) => {
      const orgs = [...(byPeriod.get(period) as Map<string, PartnerUsageCounts>).entries()].sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      );
      const total = emptyCounts();
      for (const [, counts] of orgs) {
        total.activeContacts += counts.activeContacts;
        total.conversations += counts.conversations;
        for (const channel of counts.channels) {
          addCounter(total, MESSAGES_IN, channel.channelKind, channel.messagesIn);
          addCounter(total, MESSAGES_OUT, channel.channelKind, channel.messagesOut);
        }
      }
      const { start, end } = boundsOf(period);
      return {
        period,
        start: start.toISOString(),
        end: end.toISOString(),
        clientOrgs: orgs.map(([id, usage]) => ({ clientOrgId: id, usage })),
        total,
      };
    });
  }

  /** Another provider's client org, an org that is nobody's and an unknown id are all NOT_FOUND alike. */
  private async requireClientOrg(providerOrgId: string, clientOrgId: string): Promise<void> {
    if (!isId(clientOrgId)) {
      throw new InvalidArgument('clientOrgId must be a 24-character hex id', { field: 'clientOrgId' });
    }
    let provider: string;
    try {
      provider = await this.providerOf(clientOrgId);
    } catch (error) {
      if (error instanceof NotFound) provider = '';
      else throw error;
    }
    if (provider !== providerOrgId) throw new NotFound('client org not found');
  }
}
