import {
  PrincipalSigner,
  eventually,
  grpcClient,
  importSigningKey,
  newId,
  openDataSource,
  systemPrincipal,
  unary,
} from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { FakeChatAppB, type FakeBot } from '../fakes/chat-app-b';
import { SAMPLES } from '../support/media-samples';
import { connectDirectly } from '../support/platform-channels';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type StackHarnessOptions, type TestOrg } from '../support/stack-harness';
import { SITE, WidgetFixtures, userHash, web, type SessionBody } from '../support/widget';
import { WebhookFixtures, graphqlData, postWebhook, settledFlowRuns } from '../support/webhooks';

/** One person's data spread over every service, and the ids and words to look for once it is erased. */
export interface Person {
  contactId: string;
  /** Words that occur only in this person's data (names, addresses, message texts): none may be found afterwards. */
  markers: string[];
  /** One word of every message text this person's chats hold (search finds each message by it). */
  word: string;
  name: string;
  email: string;
  phone: string;
  externalId: string;
  platformUserId: string;
  widgetUserId: string;
  /** The platform chat (ChatAppB) and the widget chat. */
  chatIds: string[];
  conversationIds: string[];
  messageIds: string[];
  noteIds: string[];
  mediaIds: string[];
  mediaUrls: string[];
  /** The widget session's tokens. */
  session: SessionBody;
  requestIds: string[];
  flowRunIds: string[];
}

/** What the world shares between its people: the org, its channels, its connection and flow. */
export interface ErasureWorld {
  harness: StackHarness;
  org: TestOrg;
  /** Every scope but PARTNER_ADMIN. */
  key: string;
  keyId: string;
  fake: FakeChatAppB;
  bot: FakeBot;
  platformChannelId: string;
  webChannelId: string;
  publicKey: string;
  identitySecret: string;
  connectionId: string;
  connectionSecret: string;
  flowId: string;
  /** People field definitions: a TEXT `nickname` and a SELECT `plan`. */
  fieldIds: string[];
}

const SEND_TEXT =
  'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }';

/** The contacts service as channels and widget-api call it (SYSTEM of the org), for lookups no public query has. */
export class ContactLookups {
  private readonly signer: PrincipalSigner;
  private readonly client: ContactsServiceClient;

  constructor(private readonly harness: StackHarness) {
    const key = JSON.stringify(harness.stack.trustKeys.signing.channels);
    this.signer = new PrincipalSigner('channels', importSigningKey('channels', key));
    this.client = grpcClient(ContactsServiceClient, `127.0.0.1:${harness.stack.contacts.grpcPort}`);
  }

  lookup(orgId: string, identifierType: IdentifierType, value: string, channelIntegrationId?: string) {
    return unary(
      this.client.lookupContact.bind(this.client),
      { identifierType, value, channelIntegrationId },
      this.signer.metadata(systemPrincipal(orgId), 'contacts'),
    );
  }

  close(): void {
    this.client.close();
  }
}

/** A started erasure world and what stops it. */
export interface RunningErasureWorld {
  world: ErasureWorld;
  lookups: ContactLookups;
  stop(): Promise<void>;
}

/**
 * The whole stack with channels calling a ChatAppB fake, an org with a key of every scope but PARTNER_ADMIN, and its
 * `erasureWorld`; `stackEnv`: the stack's own settings.
 */
export async function startErasureWorld(
  orgName: string,
  stackEnv: Record<string, string> = {},
  options: Pick<StackHarnessOptions, 'holdWidgetErasureRequests'> = {},
): Promise<RunningErasureWorld> {
  const fake = new FakeChatAppB();
  await fake.start();
  const harness = new StackHarness({}, stackEnv, { ...options, platformUrls: { CHAT_APP_B_API_URL: fake.apiUrl } });
  let lookups: ContactLookups | undefined;
  const stop = async () => {
    lookups?.close();
    await harness.stop();
    await fake.stop();
  };
  try {
    await harness.start();
    const org = await harness.newOrg(orgName);
    const { key, id: keyId } = await org.mintKey(ALL_SCOPES_BUT_PARTNER);
    const world = await erasureWorld(harness, org, { key, keyId }, fake);
    lookups = new ContactLookups(harness);
    return { world, lookups, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** A service's counts (a preview's or a receipt's). */
export interface ServiceCounts {
  service: string;
  counts: { kind: string; count: number }[];
}

/** An `eraseContact` answer. */
export interface Receipt {
  id: string;
  contactId: string;
  requestedBy: string;
  requestedAt: string;
  status: 'IN_PROGRESS' | 'COMPLETED';
  completedAt: string | null;
  services: (ServiceCounts & { confirmed: boolean; confirmedAt: string | null })[];
}

/** A service's counts as a map kind → count. */
export const byKind = (services: ServiceCounts[], service: string) =>
  Object.fromEntries(services.find((s) => s.service === service)?.counts.map((c) => [c.kind, c.count]) ?? []);

/** Sets up the org's channels (a ChatAppB bot, a web integration), a webhook connection and a published flow. */
export async function erasureWorld(
  harness: StackHarness,
  org: TestOrg,
  { key, keyId }: { key: string; keyId: string },
  fake: FakeChatAppB,
): Promise<ErasureWorld> {
  const bot = fake.addBot();
  const platform = await connectDirectly(harness, org.id, ChannelType.CHAT_APP_B, { botToken: bot.token });
  const { integration, secret } = await new WidgetFixtures(harness, org).integration();
  const webhooks = new WebhookFixtures(harness, org);
  const connection = await webhooks.connection({ name: `Orders ${newId().slice(-6)}` });
  const flowId = await webhooks.publishedFlow(connection._id, 'Order {{webhook.order.id}} is on its way');
  const fieldIds: string[] = [];
  for (const input of [
    { key: 'nickname', label: 'Nickname', type: 'TEXT' },
    { key: 'plan', label: 'Plan', type: 'SELECT', options: ['free', 'pro'] },
  ])
    fieldIds.push(
      (
        await graphqlData<{ createPeopleFieldDefinition: { id: string } }>(
          harness,
          key,
          'mutation($i: CreatePeopleFieldDefinitionInput!) { createPeopleFieldDefinition(input: $i) { id } }',
          { i: input },
        )
      ).createPeopleFieldDefinition.id,
    );
  return {
    harness,
    org,
    key,
    keyId,
    fake,
    bot,
    platformChannelId: platform.channelId,
    webChannelId: integration.id,
    publicKey: integration.publicKey,
    identitySecret: secret,
    connectionId: connection._id,
    connectionSecret: connection.secret ?? '',
    flowId,
    fieldIds,
  };
}

/**
 * A person as they come to exist through the real surfaces: writes to the ChatAppB bot (text and a document the
 * channel fetches), is named and given an email, phone and the site's user id through the contacts API, starts an
 * identified widget session on the site and writes there (text and an uploaded image); agents answer on both
 * channels, react, attach an image and write notes; an order system posts two webhooks naming their email, each
 * running the published flow for them.
 */
export async function person(world: ErasureWorld, lookups: ContactLookups, label: string): Promise<Person> {
  const { harness, org, key, fake, bot } = world;
  const tag = newId().slice(-8);
  const word = `${label}${tag}`.toLowerCase();
  const gql = <T>(query: string, variables: Record<string, unknown>) => graphqlData<T>(harness, key, query, variables);

  // The platform: a text and a document, fetched through getFile into the media library.
  const user = fake.user({ first_name: `${label}first${tag}`, last_name: `${label}last${tag}`, username: undefined });
  const platformUserId = String(user.id);
  await fake.deliverUpdate(bot, fake.textUpdate(bot, user, `hello from the platform ${word}`));
  const fileId = fake.addFile(bot, `document bytes ${word}`, 'application/pdf', `${word}.pdf`);
  await fake.deliverUpdate(
    bot,
    fake.messageUpdate(bot, user, {
      document: { file_id: fileId, file_unique_id: `u${tag}`, file_name: `${word}.pdf`, mime_type: 'application/pdf' },
      caption: `my invoice ${word}`,
    }),
  );
  const found = await eventually(async () => {
    const result = await lookups.lookup(
      org.id,
      IdentifierType.CHANNEL_USER_ID,
      platformUserId,
      world.platformChannelId,
    );
    return result.found && result.latestChatId ? result : undefined;
  });
  const contactId = found.contactId;
  const platformChatId = found.latestChatId;
  const messagesOf = async (chatId: string) =>
    (
      await gql<{ getMessages: { data: { _id: string; text: string; mediaIds: string[]; internal: boolean }[] } }>(
        'query($c: String!) { getMessages(chatId: $c, input: { limit: 100 }) { data { _id text mediaIds internal } } }',
        { c: chatId },
      )
    ).getMessages.data;
  await eventually(async () => (await messagesOf(platformChatId)).some((m) => m.mediaIds.length > 0));

  // The contacts API: name, email, phone, an external id and the site's user id on the web integration.
  const name = `${label} Person ${tag}`;
  const email = `${word}@example.com`;
  const phone = `+1555${String(parseInt(tag.slice(-6), 16) % 10_000_000).padStart(7, '0')}`;
  const externalId = `crm-${word}`;
  const widgetUserId = `site-user-${word}`;
  await gql('mutation($id: ID!, $i: ContactApiInput!) { updateContactApi(id: $id, input: $i) { id } }', {
    id: contactId,
    i: {
      name,
      email,
      phone,
      externalId,
      identities: [{ type: 'CHANNEL_USER_ID', value: widgetUserId, channelIntegrationId: world.webChannelId }],
    },
  });

  // People fields: a nickname and a plan.
  const [nicknameId, planId] = world.fieldIds;
  for (const [definitionId, value] of [
    [nicknameId, `nick ${word}`],
    [planId, 'pro'],
  ])
    await gql(
      'mutation($c: ID!, $d: ID!, $v: JSON!) { setPeopleFieldValue(contactId: $c, definitionId: $d, value: $v) { key } }',
      {
        c: contactId,
        d: definitionId,
        v: value,
      },
    );

  // The widget: an identified session as that user, a message and an uploaded image.
  const started = await web<SessionBody>(harness.url, '/visitor/start-identified', {
    body: { publicKey: world.publicKey, userId: widgetUserId, userHash: userHash(world.identitySecret, widgetUserId) },
    origin: SITE,
  });
  if (started.status !== 200) throw new Error(`start-identified: ${JSON.stringify(started.body)}`);
  const session = started.body;
  const widgetChatId = session.chat._id;
  const visitorUpload = async (name: string) => {
    const upload = await fetch(`${harness.url}/api/web/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.sessionToken}`, 'content-type': 'image/png', 'x-file-name': name },
      body: SAMPLES.png,
    });
    const media = (await upload.json()) as { _id: string };
    if (upload.status !== 201) throw new Error(`widget upload: ${JSON.stringify(media)}`);
    return media._id;
  };
  const visitorMedia = { _id: await visitorUpload(`${word}.png`) };
  // Uploaded, never sent: still theirs.
  const draftMediaId = await visitorUpload(`${word}-draft.png`);
  const posted = await web<{ _id: string }>(harness.url, `/chats/${widgetChatId}/messages`, {
    body: { clientMessageId: `c-${tag}`, text: `hello from the site ${word}`, mediaIds: [visitorMedia._id] },
    token: session.sessionToken,
    origin: SITE,
  });
  if (posted.status !== 201) throw new Error(`widget message: ${JSON.stringify(posted.body)}`);

  // Agents: answers on both channels, a reaction, an image, notes.
  const noteIds: string[] = [];
  const reply = async (chatId: string, input: Record<string, unknown>) =>
    (await gql<{ sendMessage: { _id: string } }>(SEND_TEXT, { c: chatId, i: input })).sendMessage._id;
  await reply(platformChatId, { text: `answer on the platform ${word}` });
  await reply(widgetChatId, { text: `answer on the site ${word}` });
  noteIds.push(await reply(widgetChatId, { text: `note about ${word}`, internal: true }));
  noteIds.push(await reply(platformChatId, { text: `another note about ${word}`, internal: true }));
  await gql('mutation($m: String!) { addMessageReaction(messageId: $m, emoji: "👍") { _id } }', { m: posted.body._id });
  const agentMedia = dataOf(
    await harness.upload<{ createMedia: { _id: string } }>(
      'mutation($f: File!) { createMedia(file: $f) { _id } }',
      { f: null },
      { 'variables.f': { bytes: SAMPLES.pdf, name: `${word}-contract.pdf` } },
      key,
    ),
  ).createMedia;
  await reply(widgetChatId, { type: 'MEDIA', mediaIds: [agentMedia._id], text: `the contract ${word}` });

  // The order system: two requests naming the email, each running the flow (which writes to the latest chat).
  const requestIds: string[] = [];
  for (let order = 1; order <= 2; order += 1) {
    const requestId = `req-${word}-${order}`;
    const answer = await postWebhook(
      harness,
      world.connectionId,
      JSON.stringify({ customer: { email, name }, order: { id: `${word} ${order}` } }),
      { 'x-webhook-secret': world.connectionSecret, 'x-request-id': requestId, 'x-customer': email },
    );
    if (answer.status !== 202) throw new Error(`webhook: ${answer.status} ${JSON.stringify(answer.body)}`);
    requestIds.push(answer.body.requestId ?? '');
  }
  const runs = await settledFlowRuns(harness, org.sessionToken, world.flowId, requestIds[1] ?? '', { finished: true });
  const flowRunIds = runs.filter((run) => run.contactId === contactId).map((run) => run._id);

  const chatIds = [platformChatId, widgetChatId];
  const conversationIds = [
    ...new Set(
      await Promise.all(
        chatIds.map(
          async (c) =>
            (
              await gql<{ chat: { conversationId: string } }>(
                'query($c: String!) { chat(chatId: $c) { conversationId } }',
                { c },
              )
            ).chat.conversationId,
        ),
      ),
    ),
  ];
  const messages = (await Promise.all(chatIds.map(messagesOf))).flat();
  const mediaIds = [...messages.flatMap((m) => m.mediaIds), draftMediaId];
  const library = await gql<{ allMedia: { data: { _id: string; url: string }[] } }>(
    'query { allMedia(input: { limit: 100 }) { data { _id url } } }',
    {},
  );
  const media = library.allMedia.data.filter((m) => mediaIds.includes(m._id));
  return {
    contactId,
    markers: [word, name, email, phone.slice(1), externalId, widgetUserId, platformUserId, user.first_name],
    word,
    name,
    email,
    phone,
    externalId,
    platformUserId,
    widgetUserId,
    chatIds,
    conversationIds,
    messageIds: messages.filter((m) => !m.internal).map((m) => m._id),
    noteIds,
    mediaIds: media.map((m) => m._id),
    mediaUrls: media.map((m) => m.url),
    session,
    requestIds,
    flowRunIds,
  };
}

function dataOf<T>(response: { status: number; body: { data?: T | null; errors?: unknown } }): T {
  if (response.status !== 200 || response.body.errors || !response.body.data)
    throw new Error(JSON.stringify(response.body));
  return response.body.data;
}

/** Every word and id of the person a table could still hold: their words, contact, threads, messages, media, runs. */
export function tracesOf(p: Person): string[] {
  return [
    ...p.markers,
    p.contactId,
    ...p.chatIds,
    ...p.conversationIds,
    ...p.messageIds,
    ...p.noteIds,
    ...p.mediaIds,
    ...p.flowRunIds,
  ];
}

/** What every read of every service still finds of one person (all zeros once they are erased). */
export interface Holdings {
  /** contactApi, contactApiByExternalId, and the person in contactsApi. */
  contactReads: number;
  /** Their people field values (getPeopleFieldValues). */
  fieldValues: number;
  /** Lookups by email, phone, platform user id, site user id (as channels, widget-api and webhooks resolve). */
  lookups: number;
  /** chat, getMessages and conversation reads that answer. */
  chatReads: number;
  messages: number;
  notes: number;
  /** searchChats by name, by email, by phone. */
  chatSearchHits: number[];
  /** apiSearchMessages and searchConversations by the person's word. */
  messageSearchHits: number;
  conversationSearchHits: number;
  /** Their media in the library, their media links that still serve, their blobs in storage. */
  libraryMedia: number;
  mediaLinks: number;
  blobs: number;
  /** History rows that name them (contact id) or carry their email (headers). */
  historyRows: number;
  flowRuns: number;
  /** The widget session's refresh token still renews it. */
  widgetSessions: number;
}

/** `widget: false` leaves the widget session alone (a refresh ends a session whose contact the inbox erased: decision 0174). */
export async function holdings(
  world: ErasureWorld,
  lookups: ContactLookups,
  p: Person,
  options: { widget?: boolean } = {},
): Promise<Holdings> {
  const { harness, org, key } = world;
  const ok = async (query: string, variables: Record<string, unknown>) => {
    const response = await harness.graphql(query, variables, key);
    return response.status === 200 && !response.body.errors && response.body.data ? 1 : 0;
  };
  const gql = <T>(query: string, variables: Record<string, unknown> = {}) =>
    graphqlData<T>(harness, key, query, variables);
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

  const listed = await gql<{ contactsApi: { data: { id: string }[] } }>(
    'query { contactsApi(pagination: { first: 100 }) { data { id } } }',
  );
  const contactReads =
    (await ok('query($id: ID!) { contactApi(id: $id) { id } }', { id: p.contactId })) +
    (await ok('query($e: String!) { contactApiByExternalId(externalId: $e) { id } }', { e: p.externalId })) +
    listed.contactsApi.data.filter((c) => c.id === p.contactId).length;

  const values = await harness.graphql<{ getPeopleFieldValues: unknown[] }>(
    'query($c: ID!) { getPeopleFieldValues(contactId: $c) { key } }',
    { c: p.contactId },
    key,
  );
  const fieldValues = values.body.data?.getPeopleFieldValues.length ?? 0;

  const found = await Promise.all([
    lookups.lookup(org.id, IdentifierType.EMAIL, p.email),
    lookups.lookup(org.id, IdentifierType.PHONE_NUMBER, p.phone),
    lookups.lookup(org.id, IdentifierType.CHANNEL_USER_ID, p.platformUserId, world.platformChannelId),
    lookups.lookup(org.id, IdentifierType.CHANNEL_USER_ID, p.widgetUserId, world.webChannelId),
    ...p.chatIds.map((chatId) => lookups.lookup(org.id, IdentifierType.CHAT_ID, chatId)),
  ]);

  let chatReads = 0;
  let messages = 0;
  let notes = 0;
  for (const chatId of p.chatIds) {
    chatReads += await ok('query($c: String!) { chat(chatId: $c) { _id } }', { c: chatId });
    const page = await harness.graphql<{ getMessages: { data: { internal: boolean }[] } }>(
      'query($c: String!) { getMessages(chatId: $c, input: { limit: 100 }) { data { internal } } }',
      { c: chatId },
      key,
    );
    const data = page.body.data?.getMessages.data ?? [];
    if (page.body.data) chatReads += 1;
    messages += data.filter((m) => !m.internal).length;
    const chatNotes = await harness.graphql<{ getChatNotes: { data: unknown[] } }>(
      'query($c: String!) { getChatNotes(chatId: $c, input: { limit: 100 }) { data { _id } } }',
      { c: chatId },
      key,
    );
    notes += chatNotes.body.data?.getChatNotes.data.length ?? 0;
  }
  for (const conversationId of p.conversationIds)
    chatReads += await ok('query($c: String!) { conversation(conversationId: $c) { _id } }', { c: conversationId });

  const chatsFound = async (query: string) =>
    (
      await gql<{ searchChats: { data: { _id: string }[] } }>(
        'query($q: String) { searchChats(filter: { query: $q }, input: { limit: 100 }) { data { _id } } }',
        { q: query },
      )
    ).searchChats.data.length;
  const chatSearchHits = await Promise.all([p.name, p.email, p.phone].map(chatsFound));
  const messageSearchHits = (
    await gql<{ apiSearchMessages: { data: unknown[] } }>(
      'query($q: String!) { apiSearchMessages(query: $q, input: { limit: 100 }) { data { _id } } }',
      { q: p.word },
    )
  ).apiSearchMessages.data.length;
  const conversationSearchHits = (
    await gql<{ searchConversations: { data: unknown[] } }>(
      'query($q: String) { searchConversations(query: $q, input: { limit: 100 }) { data { _id } } }',
      { q: p.word },
    )
  ).searchConversations.data.length;

  const library = await gql<{ allMedia: { data: { _id: string }[] } }>(
    'query { allMedia(input: { limit: 100 }) { data { _id } } }',
  );
  const libraryMedia = library.allMedia.data.filter((m) => p.mediaIds.includes(m._id)).length;
  const links = await Promise.all(
    p.mediaUrls.map(async (url) => (await fetch(url.startsWith('/') ? `${harness.url}${url}` : url)).status),
  );
  const blobs = await Promise.all(
    p.mediaIds.map(async (id) => {
      const stream = await harness.stack.inbox.blobs.open(`${org.id}/${id}`);
      stream?.destroy();
      return stream ? 1 : 0;
    }),
  );

  const dashboard = <T>(query: string, variables: Record<string, unknown>) =>
    graphqlData<T>(harness, org.sessionToken, query, variables);
  const history = await dashboard<{
    inboundConnectionHistory: { data: { contactId: string | null; headers: unknown }[] };
  }>(
    'query($id: String!) { inboundConnectionHistory(id: $id, input: { limit: 100 }) { data { contactId headers } } }',
    { id: world.connectionId },
  );
  const historyRows = history.inboundConnectionHistory.data.filter(
    (row) => row.contactId === p.contactId || JSON.stringify(row.headers).includes(p.email),
  ).length;
  const runs = await dashboard<{ flowRuns: { data: { _id: string; contactId: string | null }[] } }>(
    'query($f: String!) { flowRuns(flowId: $f, input: { limit: 100 }) { data { _id contactId } } }',
    { f: world.flowId },
  );
  const flowRuns = runs.flowRuns.data.filter(
    (run) => run.contactId === p.contactId || p.flowRunIds.includes(run._id),
  ).length;

  const refreshed =
    options.widget === false
      ? { status: 0 }
      : await web<SessionBody>(harness.url, '/visitor/refresh', {
          body: { publicKey: world.publicKey, refreshToken: p.session.refreshToken },
          origin: SITE,
        });
  if (refreshed.status === 200 && 'body' in refreshed) p.session = refreshed.body;

  return {
    contactReads,
    fieldValues,
    lookups: found.filter((f) => f.found && f.contactId === p.contactId).length,
    chatReads,
    messages,
    notes,
    chatSearchHits,
    messageSearchHits,
    conversationSearchHits,
    libraryMedia,
    mediaLinks: links.filter((status) => status === 200).length,
    blobs: sum(blobs),
    historyRows,
    flowRuns,
    widgetSessions: refreshed.status === 200 ? 1 : 0,
  };
}

export const NOTHING: Holdings = {
  contactReads: 0,
  fieldValues: 0,
  lookups: 0,
  chatReads: 0,
  messages: 0,
  notes: 0,
  chatSearchHits: [0, 0, 0],
  messageSearchHits: 0,
  conversationSearchHits: 0,
  libraryMedia: 0,
  mediaLinks: 0,
  blobs: 0,
  historyRows: 0,
  flowRuns: 0,
  widgetSessions: 0,
};

/**
 * The erasure's own records keep the erased contact's id: contacts' requests and confirmations (the receipt names it)
 * and the inbox's tombstone (`erased_contacts`, decision 0169); nothing else may.
 */
export const allowedLeftover = (p: Pick<Person, 'contactId'>) => (table: string, needle: string) =>
  (table.includes('erasure') || table === 'erased_contacts') && needle === p.contactId;

/** A row of a service's database that still holds one of the words looked for. */
export interface Leftover {
  service: string;
  table: string;
  found: string;
}

/**
 * Every row of every table of every service's database (the stack's own, SQLite or MariaDB) that still contains one
 * of `needles` (compared case-insensitively, binary columns read as UTF-8). `allowed` names tables whose rows may
 * hold a needle (the erasure's own records of the contact id).
 */
export async function leftovers(
  harness: StackHarness,
  needles: string[],
  allowed: (table: string, needle: string) => boolean = () => false,
): Promise<Leftover[]> {
  const found: Leftover[] = [];
  const lower = needles.map((n) => n.toLowerCase());
  for (const app of harness.stack.apps) {
    // A service stopped by the test: its database read through a connection of our own.
    const own = app.dataSource.isInitialized
      ? undefined
      : await openDataSource(
          { url: app.config.DB_URL, entities: [], migrations: { mysql: [], sqlite: [] } },
          { migrate: false },
        );
    const source = own ?? app.dataSource;
    const sqlite = source.options.type === 'better-sqlite3';
    const tables = (
      (await source.query(sqlite ? "SELECT name FROM sqlite_master WHERE type = 'table'" : 'SHOW TABLES')) as Record<
        string,
        string
      >[]
    ).map((row) => Object.values(row)[0] ?? '');
    for (const table of tables) {
      const quoted = sqlite ? `"${table}"` : `\`${table}\``;
      const rows = (await source.query(`SELECT * FROM ${quoted}`)) as Record<string, unknown>[];
      for (const row of rows) {
        const text = Object.values(row)
          .map((value) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value)))
          .join('\u0000')
          .toLowerCase();
        lower.forEach((needle, index) => {
          const original = needles[index] ?? needle;
          const known = found.some((f) => f.service === app.spec.name && f.table === table && f.found === original);
          if (text.includes(needle) && !allowed(table, original) && !known)
            found.push({ service: app.spec.name, table, found: original });
        });
      }
    }
    await own?.destroy();
  }
  return found;
}
