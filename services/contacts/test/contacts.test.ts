import { expect } from 'chai';
import { Server, ServerCredentials, status, type Metadata, type ServiceError } from '@grpc/grpc-js';
import {
  ApiScope,
  dropTestDatabase,
  eventually,
  grpcClient,
  newId,
  systemPrincipal,
  testEnv,
  unary,
  type Principal,
  rejection,
  apiKeyPrincipal,
  callerMetadata,
  FakeChannels,
  jwksSchema,
  PrincipalVerifier,
  testTrustKeys,
} from '@svc/kit';
import { AttributeSource, ContactsServiceClient, IdentifierType, type ContactInput } from '@svc/proto/contacts/v1';
import { ChatEvent, Envelope } from '@svc/proto/events/v1';
import { Chat, InboxServiceService } from '@svc/proto/inbox/v1';
import { ContactsApp, contactsConfig } from '../src';
import { skippedAttributes } from '../src/domain/contact-attributes';
import { PeopleFieldDefinitionRow } from '../src/entities';
import type { PeopleFieldType } from '../src/entities/people-field';

const MANAGE = [ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE];

/**
 * A stand-in for the inbox: the contacts service only asks it who owns a chat (GetChat) and which chats are the org's
 * (FindChats, read from the signed principal), and learns of new chats from `chat.opened` events, which the tests
 * publish on the service's bus.
 */
class FakeInbox {
  readonly server = new Server();
  readonly chats = new Map<string, { orgId: string; contactId: string }>();
  port = 0;

  constructor(private readonly orgOf: (metadata: Metadata) => Promise<string>) {}

  async start(): Promise<void> {
    this.server.addService(InboxServiceService, {
      findChats: (
        call: { request: { chatIds: string[] }; metadata: Metadata },
        callback: (error: Partial<ServiceError> | null, value?: unknown) => void,
      ) => {
        void this.orgOf(call.metadata).then((orgId) =>
          callback(null, { chatIds: call.request.chatIds.filter((id) => this.chats.get(id)?.orgId === orgId) }),
        );
      },
      getChat: (
        call: { request: { chatId: string } },
        callback: (error: Partial<ServiceError> | null, value?: unknown) => void,
      ) => {
        const chat = this.chats.get(call.request.chatId);
        if (!chat) return callback({ code: status.NOT_FOUND, details: 'chat not found' });
        callback(
          null,
          Chat.fromPartial({ _id: call.request.chatId, channelId: newId(), contact: { _id: chat.contactId } }),
        );
      },
    });
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  }
}

describe('ContactsService', () => {
  let app: ContactsApp;
  let client: ContactsServiceClient;
  const inboxVerifier = new PrincipalVerifier('inbox', jwksSchema.parse(testTrustKeys().jwks));
  const inbox = new FakeInbox(async (metadata) => (await inboxVerifier.fromMetadata(metadata)).orgId);
  const channels = new FakeChannels();
  const as = (principal: Principal): Promise<Metadata> => callerMetadata(principal, 'contacts');

  before(async () => {
    await inbox.start();
    await channels.start();
    app = new ContactsApp(contactsConfig(testEnv('contacts')), {
      inboxAddress: () => `127.0.0.1:${inbox.port}`,
      channelsAddress: () => channels.address,
    });
    await app.start();
    client = grpcClient(ContactsServiceClient, `127.0.0.1:${app.grpcPort}`);
  });

  after(async () => {
    client.close();
    await app.stop();
    inbox.server.forceShutdown();
    channels.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const create = (principal: Principal, input: Partial<ContactInput>) =>
    unary(client.createContact.bind(client), { input: { identities: [], ...input } }, as(principal));
  const update = (principal: Principal, id: string, input: Partial<ContactInput>) =>
    unary(client.updateContact.bind(client), { id, input: { identities: [], ...input } }, as(principal));
  const upsert = (principal: Principal, input: Partial<ContactInput>) =>
    unary(client.upsertContact.bind(client), { input: { identities: [], ...input } }, as(principal));
  const refusal = async (call: Promise<unknown>) => {
    const error = await rejection(call);
    return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0], details: error.details };
  };
  const lookup = (orgId: string, identifierType: IdentifierType, value: string, channelIntegrationId?: string) =>
    unary(
      client.lookupContact.bind(client),
      { identifierType, value, channelIntegrationId },
      as(systemPrincipal(orgId)),
    );
  /** A people field of the org, as createPeopleFieldDefinition leaves it. */
  const define = async (
    orgId: string,
    key: string,
    type: PeopleFieldType,
    more: Partial<PeopleFieldDefinitionRow> = {},
  ) => {
    const at = new Date();
    await app.dataSource.getRepository(PeopleFieldDefinitionRow).insert({
      id: newId(),
      orgId,
      key,
      label: key,
      type,
      options: '[]',
      required: false,
      unique: false,
      createdAt: at,
      updatedAt: at,
      ...more,
    });
  };
  /** A chat the inbox knows about, announced with `chat.opened` as the inbox's outbox would. */
  const openChat = async (orgId: string, contactId: string, announce = true) => {
    const chatId = newId();
    inbox.chats.set(chatId, { orgId, contactId });
    if (announce) {
      const envelope: Envelope = {
        id: newId(),
        type: 'chat.opened',
        requestContext: {},
        orgId,
        occurredAt: new Date().toISOString(),
        chat: ChatEvent.fromPartial({ chatId, channelId: newId(), contactId, status: 'OPEN' }),
      };
      await app.bus.publish([
        {
          topic: `${app.config.KAFKA_TOPIC_PREFIX}svc.inbox.chats.v1`,
          key: chatId,
          value: Buffer.from(Envelope.encode(envelope).finish()),
        },
      ]);
    }
    return { _id: chatId };
  };

  describe('ContactsService.CreateContact', () => {
    it('returns the contact with a lower-cased email, an E.164 phone and their identities', async () => {
      const orgId = newId();
      await define(orgId, 'plan', 'TEXT');
      const contact = await create(apiKeyPrincipal(orgId, MANAGE), {
        name: 'Ada Lovelace',
        email: ' Ada@Example.com ',
        phone: '+1 (555) 010-0100',
        externalId: 'crm-1',
        customAttributesJson: '{"plan":"pro"}',
      });
      expect(contact.id).to.match(/^[0-9a-f]{24}$/);
      expect(contact.email).to.equal('ada@example.com');
      expect(contact.phone).to.equal('+15550100100');
      expect(JSON.parse(contact.customAttributesJson)).to.deep.equal({ plan: 'pro' });
      expect(contact.identities.map((i) => i.type)).to.have.members([
        IdentifierType.EMAIL,
        IdentifierType.PHONE_NUMBER,
      ]);
    });

    it('refuses a key without CONTACTS_MANAGE', async () => {
      const error = await rejection(create(apiKeyPrincipal(newId(), [ApiScope.CONTACTS_READ]), { name: 'x' }));
      expect(error.code).to.equal(status.PERMISSION_DENIED);
    });

    it('answers INVALID_ARGUMENT for a phone without country code and for attributes that are not an object', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      expect((await rejection(create(key, { phone: '555 0100' }))).code).to.equal(status.INVALID_ARGUMENT);
      expect((await rejection(create(key, { customAttributesJson: '[1]' }))).code).to.equal(status.INVALID_ARGUMENT);
    });

    it('answers ALREADY_EXISTS when another contact of the org has the email or external id', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      await create(key, { email: 'dup@example.com', externalId: 'dup' });
      expect((await rejection(create(key, { email: 'DUP@example.com' }))).code).to.equal(status.ALREADY_EXISTS);
      expect((await rejection(create(key, { externalId: 'dup' }))).code).to.equal(status.ALREADY_EXISTS);
      await create(apiKeyPrincipal(newId(), MANAGE), { email: 'dup@example.com', externalId: 'dup' });
    });
  });

  describe('ContactsService custom attributes (people field values, decision 0156)', () => {
    const fieldOf = async (call: Promise<unknown>) => (await refusal(call)).field;

    it('refuses an unknown key or a wrong type naming customAttributes.<key>, storing nothing', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      await define(key.orgId, 'seats', 'NUMBER');
      expect(await fieldOf(create(key, { name: 'x', customAttributesJson: '{"plan":"pro"}' }))).to.equal(
        'customAttributes.plan',
      );
      expect(await fieldOf(create(key, { name: 'x', customAttributesJson: '{"seats":"3"}' }))).to.equal(
        'customAttributes.seats',
      );
      const created = await create(key, { name: 'x', customAttributesJson: '{"seats":3}' });
      const refused = await refusal(update(key, created.id, { name: 'y', customAttributesJson: '{"seats":"three"}' }));
      expect([refused.code, refused.field]).to.deep.equal([status.INVALID_ARGUMENT, 'customAttributes.seats']);
      const read = await unary(client.getContact.bind(client), { id: created.id }, as(key));
      expect([read.name, JSON.parse(read.customAttributesJson)]).to.deep.equal(['x', { seats: 3 }]);
    });

    it('refuses a member or key creating a contact without a required field, but not a service', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      await define(key.orgId, 'tier', 'TEXT', { required: true });
      expect(await fieldOf(create(key, { name: 'x' }))).to.equal('customAttributes.tier');
      expect(
        JSON.parse((await create(key, { customAttributesJson: '{"tier":"gold"}' })).customAttributesJson),
      ).to.deep.equal({ tier: 'gold' });
      expect((await create(systemPrincipal(key.orgId), { name: 'platform user' })).customAttributesJson).to.equal('{}');
    });

    it('parses text as the field type for a service choosing TEXT, and refuses what does not parse', async () => {
      const orgId = newId();
      await define(orgId, 'seats', 'NUMBER');
      await define(orgId, 'vip', 'BOOLEAN');
      const system = systemPrincipal(orgId);
      const created = await create(system, { name: 'x' });
      const text = AttributeSource.ATTRIBUTE_SOURCE_TEXT;
      const updated = await update(system, created.id, {
        customAttributesJson: '{"seats":"42","vip":"true"}',
        customAttributesSource: text,
      });
      expect(JSON.parse(updated.customAttributesJson)).to.deep.equal({ seats: 42, vip: true });
      const refused = await refusal(
        update(system, created.id, { customAttributesJson: '{"seats":"many"}', customAttributesSource: text }),
      );
      expect([refused.code, refused.field]).to.deep.equal([status.INVALID_ARGUMENT, 'customAttributes.seats']);
      expect(refused.details).to.equal('customAttributes.seats must be a number');
    });

    it('stores what it can for a service choosing TEXT_LENIENT, and counts what it left out', async () => {
      const orgId = newId();
      await define(orgId, 'seats', 'NUMBER');
      await define(orgId, 'plan', 'TEXT');
      const before = async (reason: string) =>
        (await skippedAttributes.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
      const [unknown, invalid] = [await before('unknown_field'), await before('invalid_value')];
      const created = await create(systemPrincipal(orgId), {
        customAttributesJson: '{"seats":"many","plan":"pro","color":"red"}',
        customAttributesSource: AttributeSource.ATTRIBUTE_SOURCE_TEXT_LENIENT,
      });
      expect(JSON.parse(created.customAttributesJson)).to.deep.equal({ plan: 'pro' });
      expect(await before('unknown_field')).to.equal(unknown + 1);
      expect(await before('invalid_value')).to.equal(invalid + 1);
    });

    it('refuses a key or member choosing how attributes are read', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const refused = await refusal(
        create(key, { customAttributesJson: '{}', customAttributesSource: AttributeSource.ATTRIBUTE_SOURCE_TEXT }),
      );
      expect(refused.code).to.equal(status.PERMISSION_DENIED);
    });
  });

  describe('ContactsService.UpdateContact', () => {
    it('returns the contact with merged attributes, a null attribute removed and the email identity moved', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      for (const name of ['a', 'b', 'c']) await define(key.orgId, name, 'NUMBER');
      const created = await create(key, { email: 'old@example.com', customAttributesJson: '{"a":1,"b":2}' });
      const updated = await unary(
        client.updateContact.bind(client),
        {
          id: created.id,
          input: { email: 'new@example.com', customAttributesJson: '{"b":null,"c":3}', identities: [] },
        },
        as(key),
      );
      expect(JSON.parse(updated.customAttributesJson)).to.deep.equal({ a: 1, c: 3 });
      expect(updated.identities.map((i) => i.value)).to.deep.equal(['new@example.com']);
      expect((await lookup(key.orgId, IdentifierType.EMAIL, 'old@example.com')).found).to.equal(false);
    });

    it('answers NOT_FOUND for a contact of another org', async () => {
      const created = await create(apiKeyPrincipal(newId(), MANAGE), { name: 'x' });
      const error = await rejection(
        unary(
          client.updateContact.bind(client),
          { id: created.id, input: { name: 'y', identities: [] } },
          as(apiKeyPrincipal(newId(), MANAGE)),
        ),
      );
      expect(error.code).to.equal(status.NOT_FOUND);
    });
  });

  describe('ContactsService.CreateContact / UpdateContact / UpsertContact (Chat ID identities)', () => {
    const chatIdentity = (value: string) => ({ type: IdentifierType.CHAT_ID, value });
    const notFound = (index: number) => ({
      code: status.NOT_FOUND,
      field: `identities[${index}]`,
      details: `identities[${index}] names no chat of this org`,
    });

    it('keeps a Chat ID identity naming a chat of the org', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const chat = await openChat(key.orgId, newId(), false);
      const contact = await create(key, { name: 'x', identities: [chatIdentity(chat._id)] });
      expect(contact.identities.map((i) => i.value)).to.deep.equal([chat._id]);
    });

    it("answers NOT_FOUND for another org's chat exactly as for an unknown one, storing nothing", async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const own = await openChat(key.orgId, newId(), false);
      const theirs = await openChat(newId(), newId(), false);
      const created = await create(key, { name: 'kept' });
      for (const chatId of [theirs._id, newId()]) {
        const identities = [chatIdentity(own._id), chatIdentity(chatId)];
        expect(await refusal(create(key, { name: 'x', identities }))).to.deep.equal(notFound(1));
        expect(await refusal(update(key, created.id, { name: 'y', identities }))).to.deep.equal(notFound(1));
        expect(await refusal(upsert(key, { externalId: 'ext', identities }))).to.deep.equal(notFound(1));
      }
      const page = await unary(client.listContacts.bind(client), { pagination: { first: 10 } }, as(key));
      expect(page.data.map((c) => [c.name, c.identities.length])).to.deep.equal([['kept', 0]]);
    });
  });

  describe('ContactsService.CreateContact / UpdateContact / UpsertContact (Channel user ID identities)', () => {
    const channelUser = (channelIntegrationId: string, value = 'U1') => ({
      type: IdentifierType.CHANNEL_USER_ID,
      value,
      channelIntegrationId,
    });
    const channelOf = (orgId: string) => {
      const id = newId();
      channels.channels.set(id, orgId);
      return id;
    };
    const identitiesOf = async (key: Principal) =>
      (await unary(client.listContacts.bind(client), { pagination: { first: 10 } }, as(key))).data.map((c) => [
        c.name,
        c.identities.length,
      ]);

    it('keeps a Channel user ID identity on a channel of the org, asking channels once per write', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const channel = channelOf(key.orgId);
      const asked = channels.asked;
      const contact = await create(key, { name: 'x', identities: [channelUser(channel), channelUser(channel, 'U2')] });
      expect(contact.identities.map((i) => [i.value, i.channelIntegrationId])).to.deep.equal([
        ['U1', channel],
        ['U2', channel],
      ]);
      expect(channels.asked - asked).to.equal(1);
      await create(key, { name: 'no channel ids', email: 'no-channel@example.com' });
      expect(channels.asked - asked).to.equal(1);
    });

    it("answers NOT_FOUND naming the identity for another org's channel exactly as for an unknown one, storing nothing", async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const own = channelOf(key.orgId);
      const theirs = channelOf(newId());
      const created = await create(key, { name: 'kept' });
      const outcomes = [];
      for (const channel of [theirs, newId()]) {
        const identities = [channelUser(own), channelUser(channel, 'U2')];
        outcomes.push([
          await refusal(create(key, { name: 'x', identities })),
          await refusal(update(key, created.id, { name: 'y', identities })),
          await refusal(upsert(key, { externalId: 'ext', identities })),
        ]);
      }
      const notFound = {
        code: status.NOT_FOUND,
        field: 'identities[1]',
        details: 'identities[1] names no channel of this org',
      };
      expect(outcomes).to.deep.equal([Array(3).fill(notFound), Array(3).fill(notFound)]);
      expect(await identitiesOf(key)).to.deep.equal([['kept', 0]]);
    });

    it('checks Chat ID and Channel user ID identities together, naming the first that is not the org’s', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const chat = await openChat(key.orgId, newId(), false);
      const identities = [{ type: IdentifierType.CHAT_ID, value: chat._id }, channelUser(newId())];
      expect((await refusal(create(key, { name: 'x', identities }))).field).to.equal('identities[1]');
      const both = [{ type: IdentifierType.CHAT_ID, value: newId() }, channelUser(newId())];
      expect((await refusal(create(key, { name: 'x', identities: both }))).field).to.equal('identities[0]');
    });

    it('answers UNAVAILABLE and stores nothing when channels does not answer', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const channel = channelOf(key.orgId);
      const created = await create(key, { name: 'kept' });
      channels.down = true;
      try {
        const identities = [channelUser(channel)];
        for (const call of [
          () => create(key, { name: 'x', identities }),
          () => update(key, created.id, { name: 'y', identities }),
          () => upsert(key, { externalId: 'ext', identities }),
        ])
          expect((await refusal(call())).code).to.equal(status.UNAVAILABLE);
      } finally {
        channels.down = false;
      }
      expect(await identitiesOf(key)).to.deep.equal([['kept', 0]]);
    });
  });

  describe('ContactsService.UpsertContact', () => {
    it('creates the contact once and updates it when called again with the same external id', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const upsert = (name: string) =>
        unary(client.upsertContact.bind(client), { input: { externalId: 'u-1', name, identities: [] } }, as(key));
      const first = await upsert('First');
      const second = await upsert('Second');
      expect(second.id).to.equal(first.id);
      expect(second.name).to.equal('Second');
      const byExternal = await unary(
        client.getContactByExternalId.bind(client),
        { externalId: 'u-1' },
        as(apiKeyPrincipal(key.orgId, [ApiScope.CONTACTS_READ])),
      );
      expect(byExternal.id).to.equal(first.id);
    });

    it("answers ALREADY_EXISTS naming `email` for a new external id with another contact's email, creating nothing", async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const owner = await create(key, { email: 'owner@example.com', externalId: 'owner' });
      const error = await rejection(
        unary(
          client.upsertContact.bind(client),
          { input: { externalId: 'newcomer', email: 'Owner@Example.com', identities: [] } },
          as(key),
        ),
      );
      expect(error.code).to.equal(status.ALREADY_EXISTS);
      expect(error.details).to.equal('another contact already has this email');
      expect(error.metadata.get('x-svc-error-field')).to.deep.equal(['email']);
      const reader = as(apiKeyPrincipal(key.orgId, [ApiScope.CONTACTS_READ]));
      const missing = await rejection(
        unary(client.getContactByExternalId.bind(client), { externalId: 'newcomer' }, reader),
      );
      expect(missing.code).to.equal(status.NOT_FOUND);
      expect((await lookup(key.orgId, IdentifierType.EMAIL, 'owner@example.com')).contactId).to.equal(owner.id);
    });
  });

  describe('ContactsService.ListContacts', () => {
    it('pages with first/after without skipping or repeating, 20 by default', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const ids: string[] = [];
      for (let i = 0; i < 23; i += 1) ids.push((await create(key, { name: `c${i}` })).id);
      const list = (pagination: { first?: number; after?: string }) =>
        unary(client.listContacts.bind(client), { pagination }, as(key));
      const first = await list({});
      expect(first.data).to.have.length(20);
      expect(first.hasNext).to.equal(true);
      expect(first.hasPrevious).to.equal(false);
      const seen: string[] = [];
      let page = await list({ first: 5 });
      seen.push(...page.data.map((c) => c.id));
      while (page.hasNext) {
        page = await list({ first: 5, after: page.nextCursor ?? '' });
        seen.push(...page.data.map((c) => c.id));
      }
      expect(seen).to.deep.equal(ids);
      expect((await rejection(list({ first: 0 }))).code).to.equal(status.INVALID_ARGUMENT);
    });
  });

  describe('ContactsService.LookupContact', () => {
    it('finds a contact by email in any case and by phone in any spelling', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const contact = await create(key, { email: 'grace@example.com', phone: '+44 20 7946 0000' });
      expect((await lookup(key.orgId, IdentifierType.EMAIL, 'GRACE@example.com')).contactId).to.equal(contact.id);
      expect((await lookup(key.orgId, IdentifierType.PHONE_NUMBER, '0044 20-7946-0000')).contactId).to.equal(
        contact.id,
      );
      expect((await lookup(newId(), IdentifierType.EMAIL, 'grace@example.com')).found).to.equal(false);
    });

    it('finds a channel user id only within its channel integration', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const channel = newId();
      channels.channels.set(channel, key.orgId);
      const contact = await create(key, {
        identities: [{ type: IdentifierType.CHANNEL_USER_ID, value: 'U123', channelIntegrationId: channel }],
      });
      expect((await lookup(key.orgId, IdentifierType.CHANNEL_USER_ID, 'U123', channel)).contactId).to.equal(contact.id);
      expect((await lookup(key.orgId, IdentifierType.CHANNEL_USER_ID, 'U123', newId())).found).to.equal(false);
    });

    it('resolves a Chat ID through the inbox and reports the latest chat of a contact', async () => {
      const key = apiKeyPrincipal(newId(), MANAGE);
      const contact = await create(key, { email: 'chats@example.com' });
      const chat = await openChat(key.orgId, contact.id, false);
      const byChat = await lookup(key.orgId, IdentifierType.CHAT_ID, chat._id);
      expect(byChat).to.deep.equal({ found: true, contactId: contact.id, latestChatId: chat._id });
      const later = await openChat(key.orgId, contact.id);
      await eventually(
        async () => (await lookup(key.orgId, IdentifierType.EMAIL, 'chats@example.com')).latestChatId === later._id,
        10_000,
        'the chat.opened event to be projected',
      );
      expect((await lookup(key.orgId, IdentifierType.CHAT_ID, newId())).found).to.equal(false);
    });

    it('refuses callers that are not services of this installation', async () => {
      const error = await rejection(
        unary(
          client.lookupContact.bind(client),
          { identifierType: IdentifierType.EMAIL, value: 'x@example.com' },
          as(apiKeyPrincipal(newId(), MANAGE)),
        ),
      );
      expect(error.code).to.equal(status.PERMISSION_DENIED);
    });
  });
});
