import { isDeepStrictEqual } from 'node:util';
import { expect } from 'chai';
import { ApiScope, OrgKind, eventually, newId, now } from '@svc/kit';
import { ChannelStatus, ChannelType } from '@svc/proto/channels/v1';
import { Envelope } from '@svc/proto/events/v1';
import { MessageDirection } from '@svc/proto/inbox/v1';
import { ChannelRow } from '@svc/channels/dist/src/entities';
import { sharedStack } from '../support/shared-stack';
import { ALL_SCOPES_BUT_PARTNER, TestOrg, type StackHarness } from '../support/stack-harness';
import { ChannelSimulator, dataOf, expectError } from './inbox-fixtures';

const COUNTS = 'messagesIn messagesOut channels { channelKind messagesIn messagesOut } activeContacts conversations';
const PERIOD = `period start end clientOrgs { clientOrgId usage { ${COUNTS} } } total { ${COUNTS} }`;
const SUMMARY = `query($c: String) { partnerUsageSummary(clientOrgId: $c) { ${PERIOD} } }`;
const HISTORY = `query($c: String, $f: String, $t: String) {
  partnerUsageHistory(clientOrgId: $c, from: $f, to: $t) { ${PERIOD} }
}`;
const INBOX_TOPICS = ['svc.inbox.messages.v1', 'svc.inbox.chats.v1'];

interface Counts {
  messagesIn: number;
  messagesOut: number;
  channels: { channelKind: string; messagesIn: number; messagesOut: number }[];
  activeContacts: number;
  conversations: number;
}
interface UsagePeriod {
  period: string;
  start: string;
  end: string;
  clientOrgs: { clientOrgId: string; usage: Counts }[];
  total: Counts;
}

const currentPeriod = () => now().toISOString().slice(0, 7);

/** Polls `read` until it answers `expected` (the consumers are asynchronous), then compares, showing any difference. */
async function settlesTo<T>(read: () => Promise<T>, expected: T): Promise<void> {
  await eventually(async () => isDeepStrictEqual(await read(), expected) || undefined).catch(() => undefined);
  expect(await read()).to.deep.equal(expected);
}

describe('partner usage through GraphQL (whole stack)', () => {
  let harness: StackHarness;
  let provider: TestOrg;
  let providerKey: string;
  let client: TestOrg;
  let otherProviderKey: string;
  /** Every event of the client org on the inbox topics, as the bus delivered them. */
  const seen: { topic: string; envelope: Envelope }[] = [];
  let stopObserving = async () => undefined as void;

  const summary = async (token: string, clientOrgId?: string) =>
    dataOf(await harness.graphql<{ partnerUsageSummary: UsagePeriod }>(SUMMARY, { c: clientOrgId }, token))
      .partnerUsageSummary;

  /** A client org of the provider, made with createClientOrg by the provider's key. */
  async function newClientOrg(): Promise<TestOrg> {
    const created = dataOf(
      await harness.graphql<{ createClientOrg: { org: { id: string } } }>(
        'mutation { createClientOrg(name: "Client") { org { id } } }',
        {},
        providerKey,
      ),
    ).createClientOrg.org.id;
    return new TestOrg(harness, created, '', '', '');
  }

  before(async function () {
    this.timeout(120_000);
    harness = await sharedStack();
    provider = await harness.newOrg('Provider', OrgKind.TECH_PROVIDER);
    providerKey = (await provider.mintKey([...ALL_SCOPES_BUT_PARTNER, ApiScope.PARTNER_ADMIN])).key;
    const otherProvider = await harness.newOrg('Other provider', OrgKind.TECH_PROVIDER);
    otherProviderKey = (await otherProvider.mintKey([ApiScope.PARTNER_ADMIN])).key;
    client = await newClientOrg();
    const prefix = harness.stack.config.KAFKA_TOPIC_PREFIX;
    const subscription = await harness.stack.bus.subscribe({
      groupId: `e2e-partner-usage-${newId()}`,
      topics: INBOX_TOPICS.map((topic) => prefix + topic),
      fromBeginning: true,
      handle: async (record) => {
        const envelope = Envelope.decode(record.value);
        if (envelope.orgId === client.id) seen.push({ topic: record.topic, envelope });
      },
    });
    stopObserving = () => subscription.stop();
  });

  after(() => stopObserving());

  it('counts a known number of messages per channel kind, active contacts and conversations, exactly also when the events are delivered again', async function () {
    this.timeout(60_000);
    // A web integration made by the provider's key acting in the client org, and a CHAT_APP_A channel as channels
    // keeps one disconnected since (its messages still count under its kind).
    const asClient = { 'x-svc-org': client.id };
    const web = dataOf(
      await harness.graphql<{ createWebIntegration: { integration: { id: string } } }>(
        'mutation { createWebIntegration(input: { name: "Site" }) { integration { id } } }',
        {},
        providerKey,
        asClient,
      ),
    ).createWebIntegration.integration.id;
    const chatAppA = newId();
    await harness.stack.channels.dataSource.getRepository(ChannelRow).insert({
      id: chatAppA,
      orgId: client.id,
      type: ChannelType.CHAT_APP_A,
      status: ChannelStatus.ACTIVE,
      name: 'Gone',
      createdAt: now(),
      updatedAt: now(),
      deletedAt: now(),
    });
    const channels = new ChannelSimulator(harness, client);
    const ada = newId();
    const bob = newId();
    const adaWeb = await channels.openChat({ contactId: ada, channelId: web });
    const adaApp = await channels.openChat({ contactId: ada, channelId: chatAppA });
    const bobWeb = await channels.openChat({ contactId: bob, channelId: web });
    for (const chat of [adaWeb, adaWeb, bobWeb]) await channels.receive(chat._id, 'hi');
    await channels.receive(adaApp._id, 'hi there');
    const send = async (chatId: string, internal = false) =>
      dataOf(
        await harness.graphql(
          'mutation($c: String!, $i: Boolean) { sendMessage(chatId: $c, input: { text: "hello", internal: $i }) { _id } }',
          { c: chatId, i: internal },
          providerKey,
          asClient,
        ),
      );
    await send(adaWeb._id);
    await send(adaApp._id);
    await send(adaApp._id);
    await send(bobWeb._id, true); // an internal note: not a message of usage
    const expected: Counts = {
      messagesIn: 4,
      messagesOut: 3,
      channels: [
        { channelKind: 'CHAT_APP_A', messagesIn: 1, messagesOut: 2 },
        { channelKind: 'WEB', messagesIn: 3, messagesOut: 1 },
      ],
      activeContacts: 2,
      conversations: 2,
    };
    const usageOfClient = async () => (await summary(providerKey, client.id)).clientOrgs[0]?.usage;
    await settlesTo(usageOfClient, expected);

    // Every event again, then one new message and one new conversation behind them on the same partitions: once those
    // two are counted, the redelivered ones before them were consumed too.
    const prefix = harness.stack.config.KAFKA_TOPIC_PREFIX;
    const original = [...seen];
    expect(original.length).to.be.greaterThan(8);
    const sentinelOf = (topic: string, type: string) => {
      const found = original.find((e) => e.topic === topic && e.envelope.type === type);
      if (!found) throw new Error(`no ${type} seen`);
      return { topic, envelope: { ...found.envelope, id: newId() } };
    };
    const sentinels = [
      sentinelOf(`${prefix}svc.inbox.messages.v1`, 'message.created'),
      sentinelOf(`${prefix}svc.inbox.chats.v1`, 'conversation.created'),
    ];
    await harness.stack.bus.publish(
      [...original, ...original, ...sentinels].map(({ topic, envelope }) => ({
        topic,
        key: 'partner-usage-redelivery',
        value: Buffer.from(Envelope.encode(envelope).finish()),
      })),
    );
    const sentinelMessage = sentinels[0]?.envelope.message;
    const after = structuredClone(expected);
    after.conversations += 1;
    const kind = (sentinelMessage?.channelId === web ? 'WEB' : 'CHAT_APP_A') as string;
    const channel = after.channels.find((c) => c.channelKind === kind);
    if (!channel || !sentinelMessage) throw new Error('no sentinel message');
    if (sentinelMessage.direction === MessageDirection.INBOUND) {
      after.messagesIn += 1;
      channel.messagesIn += 1;
    } else {
      after.messagesOut += 1;
      channel.messagesOut += 1;
    }
    await settlesTo(usageOfClient, after);

    const current = await summary(providerKey, client.id);
    expect(current.period).to.equal(currentPeriod());
    expect(current.total).to.deep.equal(after);
    const history = dataOf(
      await harness.graphql<{ partnerUsageHistory: UsagePeriod[] }>(HISTORY, { c: client.id }, providerKey),
    ).partnerUsageHistory;
    expect(history).to.have.length(12);
    expect(history.at(-1)).to.deep.equal(current);
    for (const month of history.slice(0, -1)) expect(month.total).to.deep.include({ messagesIn: 0, conversations: 0 });
    // The provider's member login reads the same; the whole provider's summary lists the client org.
    const all = await summary(provider.sessionToken);
    expect(all.clientOrgs.map((o) => o.clientOrgId)).to.include(client.id);
  });

  it('answers TECH_PROVIDER orgs only: a PARTNER_ADMIN key acting in a client org and an ordinary org are refused', async () => {
    const standard = await harness.newOrg('Standard');
    const standardKey = (await standard.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    expectError(await harness.graphql(SUMMARY, {}, standardKey), 403, 'FORBIDDEN');
    expectError(await harness.graphql(HISTORY, {}, standard.sessionToken), 403, 'FORBIDDEN');
    // The provider's own PARTNER_ADMIN key, acting in its client org (X-Svc-Org drops PARTNER_ADMIN there).
    const acting = await harness.graphql(SUMMARY, {}, providerKey, { 'x-svc-org': client.id });
    expect(acting.body.errors?.[0]?.extensions?.code, JSON.stringify(acting.body)).to.equal('FORBIDDEN');
  });

  it('shows another provider nothing of these client orgs, and refuses their ids as unknown', async () => {
    const theirs = await summary(otherProviderKey);
    expect(theirs.clientOrgs).to.deep.equal([]);
    for (const query of [SUMMARY, HISTORY]) {
      const refused = await harness.graphql(query, { c: client.id }, otherProviderKey);
      expectError(refused, 200, 'NOT_FOUND');
    }
  });

  it('refuses a bad range of months or a malformed client org id', async () => {
    for (const variables of [
      { f: '2026-05', t: '2026-04' },
      { f: '2020-01', t: '2026-01' },
      { f: '2026-13' },
      { t: '26-01' },
      { c: 'not-an-id' },
    ]) {
      const refused = await harness.graphql(HISTORY, variables, providerKey);
      expect(refused.body.errors?.[0]?.extensions?.code, JSON.stringify(variables)).to.equal('BAD_USER_INPUT');
    }
    const range = dataOf(
      await harness.graphql<{ partnerUsageHistory: UsagePeriod[] }>(
        HISTORY,
        { f: '2023-02', t: '2026-01' },
        providerKey,
      ),
    ).partnerUsageHistory;
    expect(range.map((p) => p.period)).to.have.length(36);
    expect(range[0]).to.deep.include({
      period: '2023-02',
      start: '2023-02-01T00:00:00.000Z',
      end: '2023-03-01T00:00:00.000Z',
    });
  });

  it('keeps a client org’s usage once it is deprovisioned', async function () {
    this.timeout(60_000);
    const before = await summary(providerKey, client.id);
    dataOf(
      await harness.graphql(
        'mutation($id: String!) { deprovisionClientOrg(id: $id) { id } }',
        { id: client.id },
        providerKey,
      ),
    );
    const statusOfClient = async () =>
      dataOf(
        await harness.graphql<{ clientOrgs: { data: { id: string; status: string }[] } }>(
          'query { clientOrgs(limit: 100) { data { id status } } }',
          {},
          providerKey,
        ),
      ).clientOrgs.data.find((org) => org.id === client.id)?.status;
    await settlesTo(statusOfClient, 'DEPROVISIONED');
    expect(await summary(providerKey, client.id)).to.deep.equal(before);
    expect((await summary(provider.sessionToken)).clientOrgs.map((o) => o.clientOrgId)).to.include(client.id);
  });
});
