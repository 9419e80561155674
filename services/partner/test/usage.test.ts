import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  ApiScope,
  Forbidden,
  InvalidArgument,
  NotFound,
  OrgKind,
  PrincipalKind,
  createLogger,
  familyOf,
  newId,
  principalFor,
  type Principal,
} from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import type { Envelope } from '@svc/proto/events/v1';
import { AuthorType, MessageDirection } from '@svc/proto/inbox/v1';
import type { PartnerUsageCounts } from '@svc/proto/partner/v1/partner_usage';
import { closePartnerDb, openPartnerDb, openPartnerReplica } from './partner-db';
import { UsageConsumer } from '../src/domain/usage/consumer';
import type { UsageLookups } from '../src/domain/usage/facts';
import { periodOf } from '../src/domain/usage/period';
import { UsageRecorder } from '../src/domain/usage/recorder';
import { UsageReports } from '../src/domain/usage/reports';

/** Which org is whose client, and each channel's kind, as identity and channels would answer. */
class StubLookups implements UsageLookups {
  readonly providers = new Map<string, string>();
  readonly kinds = new Map<string, string>();
  /** Orgs identity does not know (it answers NOT_FOUND for them). */
  readonly unknown = new Set<string>();
  providerOf(orgId: string): Promise<string> {
    if (this.unknown.has(orgId)) return Promise.reject(new NotFound('org not found'));
    return Promise.resolve(this.providers.get(orgId) ?? '');
  }
  channelKindOf(_orgId: string, channelId: string): Promise<string> {
    return Promise.resolve(this.kinds.get(channelId) ?? '');
  }
}

function messageCreated(
  orgId: string,
  fields: { direction: MessageDirection; channelId: string; contactId: string; internal?: boolean; at?: Date },
): Envelope {
  const at = fields.at ?? new Date();
  return {
    id: newId(),
    type: 'message.created',
    orgId,
    occurredAt: at.toISOString(),
    requestContext: {},
    message: {
      messageId: newId(),
      chatId: newId(),
      direction: fields.direction,
      text: 'hello',
      internal: fields.internal ?? false,
      deliveryStatus: '',
      createdAt: at.toISOString(),
      type: 'TEXT',
      conversationId: newId(),
      editedAt: '',
      deleted: false,
      emoji: '',
      actorId: '',
      labelIds: [],
      channelId: fields.channelId,
      contactId: fields.contactId,
      authorType: fields.direction === MessageDirection.INBOUND ? AuthorType.CONTACT : AuthorType.MEMBER,
      visitorSeq: 0,
      failureReason: '',
    },
  };
}

function conversationCreated(orgId: string, at = new Date()): Envelope {
  return {
    id: newId(),
    type: 'conversation.created',
    orgId,
    occurredAt: at.toISOString(),
    requestContext: {},
    conversation: {
      conversationId: newId(),
      contactId: newId(),
      blocked: false,
      aiEnabled: false,
      removePeople: false,
      readerId: '',
    },
  };
}

function partnerAdmin(orgId: string, orgKind = OrgKind.TECH_PROVIDER): Principal {
  return { ...principalFor(PrincipalKind.API_KEY, orgId, [ApiScope.PARTNER_ADMIN]), orgKind };
}

function counts(messagesIn: number, messagesOut: number, rest: Partial<PartnerUsageCounts> = {}): PartnerUsageCounts {
  return { messagesIn, messagesOut, channels: [], activeContacts: 0, conversations: 0, ...rest };
}

describe('partner usage rollup', () => {
  let dataSource: DataSource;
  const lookups = new StubLookups();
  const logger = createLogger('partner', 'warn');
  let consumer: UsageConsumer;
  let reports: UsageReports;
  const provider = newId();
  const web = newId();
  const chatAppA = newId();

  /** A client org of `provider` with a fresh id. */
  function clientOrg(of = provider): string {
    const id = newId();
    lookups.providers.set(id, of);
    return id;
  }

  before(async () => {
    dataSource = await openPartnerDb('partner');
    consumer = new UsageConsumer(new UsageRecorder(dataSource), lookups, logger);
    reports = new UsageReports(dataSource, (orgId) => lookups.providerOf(orgId));
    lookups.kinds.set(web, ChannelType.WEB);
    lookups.kinds.set(chatAppA, ChannelType.CHAT_APP_A);
  });

  after(async () => {
    await closePartnerDb(dataSource);
  });

  it('counts messages in and out per channel kind, distinct active contacts and new conversations', async () => {
    const org = clientOrg();
    const alice = newId();
    const bob = newId();
    const events = [
      ...[alice, alice, bob].map((contactId) =>
        messageCreated(org, { direction: MessageDirection.INBOUND, channelId: web, contactId }),
      ),
      messageCreated(org, { direction: MessageDirection.OUTBOUND, channelId: web, contactId: alice }),
      ...[1, 2].map(() =>
        messageCreated(org, { direction: MessageDirection.OUTBOUND, channelId: chatAppA, contactId: bob }),
      ),
      messageCreated(org, { direction: MessageDirection.INBOUND, channelId: chatAppA, contactId: bob }),
      // An internal note is no message of usage.
      messageCreated(org, { direction: MessageDirection.OUTBOUND, channelId: web, contactId: alice, internal: true }),
      conversationCreated(org),
      conversationCreated(org),
    ];
    expect(await consumer.consume(events)).to.equal(9);
    const summary = await reports.summary(partnerAdmin(provider), org);
    expect(summary.period).to.equal(periodOf(new Date()));
    expect(summary.clientOrgs).to.deep.equal([
      {
        clientOrgId: org,
        usage: counts(4, 3, {
          channels: [
            { channelKind: 'CHAT_APP_A', messagesIn: 1, messagesOut: 2 },
            { channelKind: 'WEB', messagesIn: 3, messagesOut: 1 },
          ],
          activeContacts: 2,
          conversations: 2,
        }),
      },
    ]);
    expect(summary.total).to.deep.equal(summary.clientOrgs[0]?.usage);
  });

  it('counts a redelivered event once, in a later batch or twice within one', async () => {
    const org = clientOrg();
    const event = messageCreated(org, { direction: MessageDirection.INBOUND, channelId: web, contactId: newId() });
    const other = messageCreated(org, { direction: MessageDirection.OUTBOUND, channelId: web, contactId: newId() });
    expect(await consumer.consume([event])).to.equal(1);
    expect(await consumer.consume([event])).to.equal(0);
    expect(await consumer.consume([other, event, other])).to.equal(1);
    const usage = (await reports.summary(partnerAdmin(provider), org)).clientOrgs[0]?.usage;
    expect(usage).to.deep.include({ messagesIn: 1, messagesOut: 1, activeContacts: 2 });
  });

  it('counts an event in the UTC month it occurred in, listing months without usage as zeros', async () => {
    const org = clientOrg();
    const contactId = newId();
    const at = (iso: string) =>
      messageCreated(org, { direction: MessageDirection.INBOUND, channelId: web, contactId, at: new Date(iso) });
    await consumer.consume([at('2026-01-31T23:59:59.999Z'), at('2026-02-01T00:00:00.000Z')]);
    await consumer.consume([
      at('2026-02-15T12:00:00.000Z'),
      conversationCreated(org, new Date('2026-03-01T00:00:00Z')),
    ]);
    const history = await reports.history(partnerAdmin(provider), org, '2025-12', '2026-03');
    expect(history.map((p) => [p.period, p.start, p.end])).to.deep.equal([
      ['2025-12', '2025-12-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
      ['2026-01', '2026-01-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z'],
      ['2026-02', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
      ['2026-03', '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ]);
    const byMonth = history.map((p) => {
      const usage = p.clientOrgs[0]?.usage;
      return [usage?.messagesIn, usage?.activeContacts, usage?.conversations];
    });
    expect(byMonth).to.deep.equal([
      [0, 0, 0],
      [1, 1, 0],
      [2, 1, 0],
      [0, 0, 1],
    ]);
  });

  it('ignores the events of an org that is nobody’s client org', async () => {
    const standalone = newId();
    const event = messageCreated(standalone, {
      direction: MessageDirection.INBOUND,
      channelId: web,
      contactId: newId(),
    });
    expect(await consumer.consume([event, conversationCreated(standalone)])).to.equal(0);
    const otherProvider = newId();
    lookups.providers.set(standalone, otherProvider);
    const summary = await reports.summary(partnerAdmin(otherProvider), undefined);
    expect(summary.clientOrgs).to.deep.equal([]);
  });

  it('counts nothing of an org identity does not know, and the rest of its batch as usual', async () => {
    const unknown = newId();
    lookups.unknown.add(unknown);
    const client = clientOrg();
    const contact = newId();
    const batch = [
      messageCreated(unknown, { direction: MessageDirection.INBOUND, channelId: web, contactId: newId() }),
      conversationCreated(unknown),
      messageCreated(client, { direction: MessageDirection.INBOUND, channelId: web, contactId: contact }),
    ];
    expect(await consumer.consume(batch)).to.equal(1);
    const summary = await reports.summary(partnerAdmin(provider), client);
    expect(summary.total?.messagesIn).to.equal(1);
  });

  it('lists only the caller’s client orgs, and refuses another provider’s client org as unknown', async () => {
    const mine = clientOrg();
    const otherProvider = newId();
    const theirs = clientOrg(otherProvider);
    for (const org of [mine, theirs]) {
      await consumer.consume([
        messageCreated(org, { direction: MessageDirection.INBOUND, channelId: web, contactId: newId() }),
      ]);
    }
    const ids = (await reports.summary(partnerAdmin(otherProvider), undefined)).clientOrgs.map((o) => o.clientOrgId);
    expect(ids).to.deep.equal([theirs]);
    const refused = await reports.summary(partnerAdmin(otherProvider), mine).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(NotFound);
  });

  it('answers only a TECH_PROVIDER principal holding PARTNER_ADMIN, and checks the months asked', async () => {
    const standard = await reports.summary(partnerAdmin(provider, OrgKind.STANDARD), undefined).catch((e) => e);
    expect(standard).to.be.instanceOf(Forbidden);
    const agent = { ...principalFor(PrincipalKind.MEMBER_SESSION, provider, []), orgKind: OrgKind.TECH_PROVIDER };
    expect(await reports.summary(agent, undefined).catch((e) => e)).to.be.instanceOf(Forbidden);
    const admin = partnerAdmin(provider);
    for (const [from, to] of [
      ['2026-13', '2026-12'],
      ['2026-03', '2026-02'],
      ['2023-01', '2026-01'],
      ['26-01', undefined],
    ] as const) {
      expect(await reports.history(admin, undefined, from, to).catch((e) => e), `${from}..${to}`).to.be.instanceOf(
        InvalidArgument,
      );
    }
    expect(await reports.history(admin, undefined, '2023-02', '2026-01')).to.have.length(36);
    expect(await reports.history(admin, undefined, undefined, '2026-01')).to.have.length(12);
    expect(await reports.summary(admin, 'not-an-id').catch((e) => e)).to.be.instanceOf(InvalidArgument);
  });

  it('adds up exactly when several consumers count the same events concurrently', async () => {
    const org = clientOrg();
    const contacts = Array.from({ length: 5 }, () => newId());
    const events = Array.from({ length: 60 }, (_, i) =>
      messageCreated(org, {
        direction: i % 3 ? MessageDirection.INBOUND : MessageDirection.OUTBOUND,
        channelId: i % 2 ? web : chatAppA,
        contactId: contacts[i % contacts.length] as string,
      }),
    );
    // Three consumers, each given every event in batches of its own order. On MariaDB each has its own pool (real
    // concurrency); on SQLite they share the one connection, whose transactions run one at a time.
    const opened =
      familyOf(dataSource) === 'mysql' ? await Promise.all([1, 2].map(() => openPartnerReplica(dataSource))) : [];
    try {
      const sources = opened.length ? [dataSource, ...opened] : [dataSource, dataSource, dataSource];
      const consumers = sources.map((source) => new UsageConsumer(new UsageRecorder(source), lookups, logger));
      const orders = [events, [...events].reverse(), [...events.slice(30), ...events.slice(0, 30)]];
      const batches = (order: Envelope[]) =>
        Array.from({ length: order.length / 10 }, (_, i) => order.slice(i * 10, i * 10 + 10));
      await Promise.all(consumers.flatMap((c, n) => batches(orders[n] as Envelope[]).map((batch) => c.consume(batch))));
    } finally {
      await Promise.all(opened.map((source) => source.destroy()));
    }
    const usage = (await reports.summary(partnerAdmin(provider), org)).clientOrgs[0]?.usage;
    expect(usage).to.deep.include({ messagesIn: 40, messagesOut: 20, activeContacts: 5 });
    expect(usage?.channels).to.deep.equal([
      { channelKind: 'CHAT_APP_A', messagesIn: 20, messagesOut: 10 },
      { channelKind: 'WEB', messagesIn: 20, messagesOut: 10 },
    ]);
  });
});
