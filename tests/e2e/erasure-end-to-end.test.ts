import { expect } from 'chai';
import { ERASURE_PARTICIPANTS, eventually, testTrustEnv, testTrustKeys } from '@svc/kit';
import { IdentifierType } from '@svc/proto/contacts/v1';
import type { FakeChatAppB } from '../fakes/chat-app-b';
import { startDeployable, type DeployableProcess } from '../support/deployable-process';
import type { StackHarness, TestOrg } from '../support/stack-harness';
import { SITE, userHash, web, type SessionBody } from '../support/widget';
import {
  NOTHING,
  allowedLeftover,
  byKind,
  startErasureWorld,
  holdings,
  tracesOf,
  leftovers,
  person,
  type ContactLookups,
  type ErasureWorld,
  type Receipt,
  type RunningErasureWorld,
  type ServiceCounts,
  type Holdings,
  type Person,
} from './erasure-fixtures';

const COUNTS = 'service counts { kind count }';
const PREVIEW = `query($c: String!) { previewErase(contactId: $c) { contactId services { ${COUNTS} } } }`;
const RECEIPT_FIELDS = `id contactId requestedBy requestedAt status completedAt services { service confirmed confirmedAt counts { kind count } }`;
const ERASE = `mutation($c: String!) { eraseContact(contactId: $c) { ${RECEIPT_FIELDS} } }`;

/**
 * The GDPR erasure of issue 17 through every surface at once: a person who wrote on a messaging platform (ChatAppB
 * fake) and on the site's widget as an identified user, with agents' answers, notes, a reaction and media on both,
 * whose email an order system's webhooks named (history rows, flow runs). `previewErase` counts what is there;
 * `eraseContact` erases it in every service; then no read of any service finds anything of them, their blobs are gone,
 * no table of any service holds a word of theirs, the receipt lists the counts, and another person of the org is
 * untouched.
 */
describe('Contact erasure end to end (whole stack: platform, widget, webhooks, flows)', function () {
  this.timeout(180_000);
  let running: RunningErasureWorld | undefined;
  let harness: StackHarness;
  let org: TestOrg;
  let key: string;
  let fake: FakeChatAppB;
  let world: ErasureWorld;
  let lookups: ContactLookups;
  let erin: Person;
  let bystander: Person;
  let erinBefore: Holdings;
  let bystanderBefore: Holdings;
  let preview: ServiceCounts[];
  let receipt: Receipt;
  let requested: Receipt;
  /** What contacts and the inbox hold of the person before the erasure, by kind. */
  let expected: { contacts: Record<string, number>; inbox: Record<string, number> };

  const gql = async <T>(query: string, variables: Record<string, unknown> = {}) => {
    const response = await harness.graphql<T>(query, variables, key);
    expect(response.body.errors, JSON.stringify(response.body.errors)).to.equal(undefined);
    return response.body.data as T;
  };

  before(async function () {
    running = await startErasureWorld('Erasure');
    ({ world, lookups } = running);
    ({ harness, org, key, fake } = world);
    bystander = await person(world, lookups, 'keep');
    erin = await person(world, lookups, 'erin');
  });

  after(async () => running?.stop());

  it('finds the person everywhere before: contact, lookups, chats, messages, notes, search, media, history, runs, session', async () => {
    erinBefore = await holdings(world, lookups, erin);
    bystanderBefore = await holdings(world, lookups, bystander);
    const identities = await gql<{ contactApi: { identities: unknown[] } }>(
      'query($id: ID!) { contactApi(id: $id) { identities { type } } }',
      { id: erin.contactId },
    );
    expected = {
      contacts: { contact: 1, identities: identities.contactApi.identities.length, field_values: 2 },
      inbox: {
        conversations: erin.conversationIds.length,
        chats: erin.chatIds.length,
        messages: erin.messageIds.length,
        notes: erin.noteIds.length,
        reactions: 1,
        media: erin.mediaIds.length,
      },
    };
    // Email, phone, the platform and the site user ids, a chat id per thread.
    expect(expected.contacts.identities).to.equal(4 + erin.chatIds.length);
    expect(erinBefore).to.deep.equal({
      contactReads: 3,
      fieldValues: 2,
      lookups: 4 + erin.chatIds.length,
      chatReads: 2 * erin.chatIds.length + erin.conversationIds.length,
      messages: erin.messageIds.length,
      notes: 2,
      // searchChats by name, email and phone find both chats; the word finds every message and the conversations.
      chatSearchHits: [2, 2, 2],
      // Notes too: the key may read them.
      messageSearchHits: erin.messageIds.length + erin.noteIds.length,
      conversationSearchHits: erin.conversationIds.length,
      // The platform's document, the visitor's image and unsent upload, the agent's contract.
      libraryMedia: 4,
      mediaLinks: 4,
      blobs: 4,
      historyRows: 2,
      flowRuns: 2,
      widgetSessions: 1,
    });
    // Two inbound and one answer per channel, the widget image's message, the agent's image, a flow message per order.
    expect(erin.messageIds.length).to.be.at.least(7);
    expect(bystanderBefore).to.deep.equal({ ...erinBefore });
    // Every participant's database holds something of them (the sweep after the erasure can find each); partner only
    // for a provider's client org, which this org is not (services/partner/test/erasure.test.ts covers its part).
    const held = await leftovers(harness, [...erin.markers, erin.contactId]);
    expect([...new Set(held.map((row) => row.service))].sort()).to.deep.equal(
      ERASURE_PARTICIPANTS.filter((service) => service !== 'partner').sort(),
    );
  });

  it('previews exactly what is there, by service and kind, writing nothing', async function () {
    const answer = await gql<{ previewErase: { contactId: string; services: ServiceCounts[] } }>(PREVIEW, {
      c: erin.contactId,
    });
    preview = answer.previewErase.services;
    expect(answer.previewErase.contactId).to.equal(erin.contactId);
    expect(preview.map((s) => s.service)).to.deep.equal([...ERASURE_PARTICIPANTS]);
    expect(byKind(preview, 'contacts')).to.deep.equal(expected.contacts);
    expect(byKind(preview, 'inbox')).to.deep.equal(expected.inbox);
    // Channels: the platform's two inbound messages and the one answer delivered there (the flow wrote to the
    // latest thread, the widget's); no template was sent.
    expect(byKind(preview, 'channels')).to.deep.equal({
      template_sends: 0,
      outbound_deliveries: 1,
      inbound_messages: 2,
    });
    expect(byKind(preview, 'flows')).to.deep.equal({ flow_runs: erin.flowRunIds.length });
    expect(byKind(preview, 'webhook-ingress')).to.deep.equal({ history_rows: erin.requestIds.length });
    expect(byKind(preview, 'widget-api')).to.deep.equal({ widget_sessions: 1 });
    expect(byKind(preview, 'partner')).to.deep.equal({ pending_deliveries: 0, delivery_payloads: 0 });
    // Nothing written: the person is still all there.
    expect(await holdings(world, lookups, erin)).to.deep.equal(erinBefore);
  });

  it('eraseContact: unreadable in contacts at once; contacts and the inbox confirm their parts with what was there', async function () {
    const started = await gql<{ eraseContact: Receipt }>(ERASE, { c: erin.contactId });
    requested = started.eraseContact;
    expect(requested).to.include({ contactId: erin.contactId, requestedBy: world.keyId, status: 'IN_PROGRESS' });
    expect(requested.id).to.match(/^[0-9a-f]{24}$/);
    expect(requested.services.map((s) => s.service)).to.deep.equal([...ERASURE_PARTICIPANTS]);
    const read = await harness.graphql('query($id: ID!) { contactApi(id: $id) { id } }', { id: erin.contactId }, key);
    expect(read.body.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    const confirmed = await eventually(
      async () => {
        const again = (await gql<{ eraseContact: Receipt }>(ERASE, { c: erin.contactId })).eraseContact;
        const done = again.services.filter((s) => s.confirmed).map((s) => s.service);
        return done.includes('contacts') && done.includes('inbox') && again;
      },
      30_000,
      'contacts and the inbox to confirm',
    );
    expect(confirmed.id).to.equal(requested.id);
    expect(byKind(confirmed.services, 'contacts')).to.deep.equal(expected.contacts);
    expect(byKind(confirmed.services, 'inbox')).to.deep.equal(expected.inbox);
  });

  it('leaves nothing of them to the reads of contacts and the inbox: lookups, field values, chats, search, media library and links, blobs', async function () {
    // History rows, flow runs and the widget session are the other services' parts (below).
    const left = await holdings(world, lookups, erin, { widget: false });
    expect({ ...left, historyRows: 0, flowRuns: 0, widgetSessions: 0 }).to.deep.equal(NOTHING);
    for (const chatId of erin.chatIds) {
      const chat = await harness.graphql('query($c: String!) { chat(chatId: $c) { _id } }', { c: chatId }, key);
      expect(chat.body.errors?.[0]?.extensions?.code, chatId).to.equal('NOT_FOUND');
    }
    const values = await harness.graphql(
      'query($c: ID!) { getPeopleFieldValues(contactId: $c) { key } }',
      { c: erin.contactId },
      key,
    );
    expect(values.body.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    const found = await leftovers(harness, tracesOf(erin), allowedLeftover(erin));
    expect(found.filter((row) => row.service === 'contacts' || row.service === 'inbox')).to.deep.equal([]);
  });

  it('completes: every service confirmed, each with the counts it previewed', async function () {
    receipt = await eventually(
      async () => {
        const again = await gql<{ eraseContact: Receipt }>(ERASE, { c: erin.contactId });
        return again.eraseContact.status === 'COMPLETED' && again.eraseContact;
      },
      60_000,
      'the erasure to complete',
    );
    expect(receipt.id).to.equal(requested.id);
    expect(receipt.requestedAt).to.equal(requested.requestedAt);
    expect(receipt.completedAt).to.be.a('string');
    expect(receipt.services.map((s) => [s.service, s.confirmed])).to.deep.equal(
      ERASURE_PARTICIPANTS.map((service) => [service, true]),
    );
    for (const service of ERASURE_PARTICIPANTS)
      expect(byKind(receipt.services, service), service).to.deep.equal(byKind(preview, service));
  });

  it('leaves nothing of the person to any read of any service: history, runs, widget session too', async function () {
    expect(await holdings(world, lookups, erin)).to.deep.equal(NOTHING);
    // The widget's session token no longer reads the chat.
    const widgetRead = await web(harness.url, `/chats/${erin.session.chat._id}/messages`, {
      token: erin.session.sessionToken,
      origin: SITE,
    });
    expect(widgetRead.status).to.be.oneOf([401, 404]);
  });

  it('leaves the other person of the org exactly as they were', async function () {
    expect(await holdings(world, lookups, bystander)).to.deep.equal(bystanderBefore);
  });

  it('leaves no word of theirs in any table of any service (the erasure’s own records keep the contact id)', async function () {
    const found = await leftovers(harness, tracesOf(erin), allowedLeftover(erin));
    expect(found).to.deep.equal([]);
    // The check can find: the other person is all there.
    expect(await leftovers(harness, [bystander.word])).not.to.deep.equal([]);
  });

  it('erasing again answers the same receipt, and the inbox counts no longer count them', async function () {
    const again = await gql<{ eraseContact: Receipt }>(ERASE, { c: erin.contactId });
    expect(again.eraseContact).to.deep.equal(receipt);
    const counts = await gql<{ inboxCounts: { total: number } }>('query { inboxCounts { total } }');
    expect(counts.inboxCounts.total).to.equal(bystander.chatIds.length);
  });

  it('apiDeleteConversation(removePeople: true) runs the same erasure: its receipt completes and nothing of the person stays', async function () {
    const dora = await person(world, lookups, 'dora');
    const doraBefore = await holdings(world, lookups, dora);
    expect(doraBefore).to.deep.include({ contactReads: 3, flowRuns: 2, historyRows: 2, widgetSessions: 1 });
    const deleted = await gql<{
      apiDeleteConversation: { deletedChatIds: string[]; contactEraseRequested: boolean; erasureId: string | null };
    }>(
      'mutation($c: String!) { apiDeleteConversation(conversationId: $c, removePeople: true) { deletedChatIds contactEraseRequested erasureId } }',
      { c: dora.conversationIds[0] },
    );
    expect(deleted.apiDeleteConversation.contactEraseRequested).to.equal(true);
    expect([...deleted.apiDeleteConversation.deletedChatIds].sort()).to.deep.equal([...dora.chatIds].sort());
    const completed = await eventually(
      async () => {
        const current = (await gql<{ eraseContact: Receipt }>(ERASE, { c: dora.contactId })).eraseContact;
        return current.status === 'COMPLETED' && current;
      },
      60_000,
      'the erasure of removePeople to complete',
    );
    expect(completed.id).to.equal(deleted.apiDeleteConversation.erasureId);
    expect(byKind(completed.services, 'flows')).to.deep.equal({ flow_runs: 2 });
    expect(await holdings(world, lookups, dora)).to.deep.equal(NOTHING);
    expect(await leftovers(harness, tracesOf(dora), allowedLeftover(dora))).to.deep.equal([]);
  });

  it('a person coming back on the platform and the site is a new contact with none of the old data', async function () {
    const user = { id: Number(erin.platformUserId), is_bot: false as const, first_name: 'Again' };
    await fake.deliverUpdate(world.bot, fake.textUpdate(world.bot, user, 'back again'));
    const platform = await eventually(async () => {
      const found = await lookups.lookup(
        org.id,
        IdentifierType.CHANNEL_USER_ID,
        erin.platformUserId,
        world.platformChannelId,
      );
      return found.found && found.latestChatId ? found : undefined;
    });
    expect(platform.contactId).not.to.equal(erin.contactId);
    expect(erin.chatIds).not.to.include(platform.latestChatId);
    const messages = await gql<{ getMessages: { data: { text: string }[] } }>(
      'query($c: String!) { getMessages(chatId: $c, input: { limit: 100 }) { data { text } } }',
      { c: platform.latestChatId },
    );
    expect(messages.getMessages.data.map((m) => m.text)).to.deep.equal(['back again']);

    const started = await web<SessionBody>(harness.url, '/visitor/start-identified', {
      body: {
        publicKey: world.publicKey,
        userId: erin.widgetUserId,
        userHash: userHash(world.identitySecret, erin.widgetUserId),
      },
      origin: SITE,
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(200);
    expect(erin.chatIds).not.to.include(started.body.chat._id);
    expect(started.body.messages.data).to.deep.equal([]);
  });
});

/**
 * An erasure requested while a participant is down (issue 17, on the real Kafka under `npm run test:infra`): the
 * stack's flows service is stopped before `eraseContact`; every other service erases its part and confirms, the
 * receipt stays IN_PROGRESS naming flows as unconfirmed and flows' runs of the person are still there (nobody erased
 * them); flows' deployable then starts in its own process on the same database, gRPC port and topics, picks up the
 * request its consumer group never committed, erases and confirms, and the receipt completes.
 */
describe('Contact erasure with a participant stopped during it (Kafka)', function () {
  if (!process.env.SVC_TEST_KAFKA_BROKERS) {
    it('runs on Kafka only (npm run test:infra)');
    return;
  }
  this.timeout(240_000);
  let running: RunningErasureWorld | undefined;
  let harness: StackHarness;
  let key: string;
  let world: ErasureWorld;
  let lookups: ContactLookups;
  let flows: DeployableProcess | undefined;

  before(async function () {
    // The test process's trust keys: the flows process it starts signs with them.
    running = await startErasureWorld('Erasure on Kafka', { SVC_TRUST_KEYS: JSON.stringify(testTrustKeys()) });
    ({ world, lookups } = running);
    ({ harness, key } = world);
  });

  after(async () => {
    await flows?.stop();
    await running?.stop();
  });

  it('completes once the stopped service is back, and nothing of the person stays', async function () {
    const erin = await person(world, lookups, 'down');
    const before = await holdings(world, lookups, erin);
    expect(before.flowRuns).to.equal(2);
    const grpcPort = harness.stack.flows.grpcPort;
    await harness.stack.flows.stop();

    const erase = async () => {
      const response = await harness.graphql<{ eraseContact: Receipt }>(ERASE, { c: erin.contactId }, key);
      expect(response.body.errors, JSON.stringify(response.body.errors)).to.equal(undefined);
      return (response.body.data as { eraseContact: Receipt }).eraseContact;
    };
    const requested = await erase();
    const waiting = await eventually(
      async () => {
        const receipt = await erase();
        const unconfirmed = receipt.services.filter((s) => !s.confirmed).map((s) => s.service);
        return unconfirmed.length === 1 && receipt;
      },
      60_000,
      'every participant but flows to confirm',
    );
    expect(waiting).to.include({ id: requested.id, status: 'IN_PROGRESS', completedAt: null });
    // The erased contact is unknown to a preview; another's preview meanwhile names the service that does not answer.
    const gone = await harness.graphql(PREVIEW, { c: erin.contactId }, key);
    expect(gone.body.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    const other = await harness.graphql<{ createContactApi: { id: string } }>(
      'mutation { createContactApi(input: { name: "Someone Else" }) { id } }',
      {},
      key,
    );
    const preview = await harness.graphql(PREVIEW, { c: other.body.data?.createContactApi.id }, key);
    expect(preview.body.errors?.[0]?.extensions?.code).to.equal('UNAVAILABLE');
    expect(preview.body.errors?.[0]?.message).to.contain('flows');
    expect(waiting.services.filter((s) => !s.confirmed).map((s) => s.service)).to.deep.equal(['flows']);
    // What the other services held is gone already; flows' runs wait for flows.
    const contact = await harness.graphql(
      'query($id: ID!) { contactApi(id: $id) { id } }',
      { id: erin.contactId },
      key,
    );
    expect(contact.body.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    for (const chatId of erin.chatIds) {
      const chat = await harness.graphql('query($c: String!) { chat(chatId: $c) { _id } }', { c: chatId }, key);
      expect(chat.body.errors?.[0]?.extensions?.code, chatId).to.equal('NOT_FOUND');
    }
    const runs = (await leftovers(harness, [erin.contactId])).filter((row) => row.service === 'flows');
    expect(runs.map((row) => row.table)).to.include('flow_runs');

    flows = await startDeployable('flows', {
      LOG_LEVEL: 'info',
      DB_URL: harness.stack.flows.config.DB_URL,
      DB_MIGRATE: 'skip',
      KAFKA_BROKERS: process.env.SVC_TEST_KAFKA_BROKERS ?? '',
      KAFKA_TOPIC_PREFIX: harness.stack.flows.config.KAFKA_TOPIC_PREFIX,
      ...testTrustEnv('flows'),
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(grpcPort),
      HTTP_PORT: '0',
      IDENTITY_GRPC_URL: `127.0.0.1:${harness.stack.identity.grpcPort}`,
      INBOX_GRPC_URL: `127.0.0.1:${harness.stack.inbox.grpcPort}`,
      CONTACTS_GRPC_URL: `127.0.0.1:${harness.stack.contacts.grpcPort}`,
      WEBHOOK_INGRESS_GRPC_URL: `127.0.0.1:${harness.stack.ingress.grpcPort}`,
    });
    const receipt = await eventually(
      async () => {
        const current = await erase();
        return current.status === 'COMPLETED' && current;
      },
      90_000,
      'the erasure to complete once flows is back',
    ).catch((error: Error) => {
      throw new Error(`${error.message}; flows said:\n${flows?.output().slice(-3_000)}`);
    });
    expect(receipt.id).to.equal(requested.id);
    expect(byKind(receipt.services, 'flows')).to.include({ flow_runs: 2 });
    // Through the gateway to the flows process on the same port: no run of theirs.
    expect(await eventually(async () => holdings(world, lookups, erin).catch(() => undefined))).to.deep.equal(NOTHING);
    expect(await leftovers(harness, tracesOf(erin), allowedLeftover(erin))).to.deep.equal([]);
  });
});
