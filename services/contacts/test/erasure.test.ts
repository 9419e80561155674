import { expect } from 'chai';
import type { Metadata } from '@grpc/grpc-js';
import type { DataSource, EntityManager } from 'typeorm';
import {
  ApiScope,
  ERASURE_PARTICIPANTS,
  GrpcServer,
  OutboxEvent,
  OutboxRelay,
  PrincipalVerifier,
  apiKeyPrincipal,
  callerMetadata,
  createLogger,
  dropTestDatabase,
  addErasureParticipant,
  eventually,
  grpcClient,
  jwksSchema,
  kindCounts,
  newId,
  openDataSource,
  publishEraseConfirmation,
  publishEraseRequest,
  rejection,
  subscribeErasure,
  systemPrincipal,
  testEnv,
  testTrustKeys,
  unary,
  type ContactErasure,
  type ErasurePart,
  type Principal,
  type Subscription,
} from '@svc/kit';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { ContactErasureServiceClient, ErasureStatus, type ErasureReceipt } from '@svc/proto/contacts/v1/erasure';
import { ContactsApp, contactsConfig } from '../src';
import { PeopleFieldValueRow } from '../src/entities';
import type { RemoteParticipant } from '../src/domain/erasure/preview';

const logger = createLogger('contacts-erasure-test', 'silent');

/**
 * A stand-in for one other erasure participant: it keeps `items` per contact, answers PreviewErasure on its own gRPC
 * server and erases through the kit's chassis when its consumer runs (started late for the "not up yet" case).
 */
class FakeParticipant implements ErasurePart {
  readonly items = new Map<string, number>();
  grpc = new GrpcServer();
  private subscription: Subscription | undefined;
  port = 0;

  constructor(readonly service: RemoteParticipant) {}

  async preview(orgId: string, contactId: string) {
    return kindCounts(['items'], { items: this.items.get(`${orgId}/${contactId}`) ?? 0 });
  }

  async erase(_manager: EntityManager, { orgId, contactId }: ContactErasure) {
    const counts = await this.preview(orgId, contactId);
    this.items.delete(`${orgId}/${contactId}`);
    return { counts };
  }

  async serve(): Promise<void> {
    const verifier = new PrincipalVerifier(this.service, jwksSchema.parse(testTrustKeys().jwks));
    addErasureParticipant(this.grpc, this, { verifier, logger });
    this.port = await this.grpc.listen('127.0.0.1', this.port);
  }

  async consume(app: ContactsApp, dataSource: DataSource, relay: OutboxRelay): Promise<void> {
    this.subscription = await subscribeErasure(app.bus, dataSource, relay, this, app.config.KAFKA_TOPIC_PREFIX, logger);
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    await this.grpc.stop(100);
  }
}

describe('ContactErasureService: the erasure saga seen from contacts (docs/erasure.md)', () => {
  const participants = new Map<RemoteParticipant, FakeParticipant>(
    (['inbox', 'channels', 'flows', 'webhook-ingress', 'widget-api', 'partner'] as const).map((name) => [
      name,
      new FakeParticipant(name),
    ]),
  );
  const participant = (name: RemoteParticipant) => participants.get(name) as FakeParticipant;
  /** Started only once an erasure is waiting for it: "a participant that is not up yet finishes later". */
  const late = participant('widget-api');
  let app: ContactsApp;
  let participantsData: DataSource;
  let relay: OutboxRelay;
  let contacts: ContactsServiceClient;
  let erasure: ContactErasureServiceClient;
  const orgId = newId();
  const otherOrg = newId();
  const eraser = apiKeyPrincipal(orgId, [ApiScope.CONTACTS_ERASE]);
  const as = (principal: Principal): Promise<Metadata> => callerMetadata(principal, 'contacts');

  before(async () => {
    for (const fake of participants.values()) await fake.serve();
    app = new ContactsApp(contactsConfig(testEnv('contacts')), {
      erasureParticipants: Object.fromEntries(
        [...participants].map(([name, fake]) => [name, () => `127.0.0.1:${fake.port}`]),
      ),
    });
    await app.start();
    participantsData = await openDataSource(
      { url: 'sqlite::memory:', entities: [OutboxEvent], migrations: { mysql: [], sqlite: [] } },
      { migrate: false },
    );
    await participantsData.synchronize();
    relay = new OutboxRelay(participantsData, app.bus, logger, { topicPrefix: app.config.KAFKA_TOPIC_PREFIX });
    relay.start();
    for (const fake of participants.values()) if (fake !== late) await fake.consume(app, participantsData, relay);
    contacts = grpcClient(ContactsServiceClient, `127.0.0.1:${app.grpcPort}`);
    erasure = grpcClient(ContactErasureServiceClient, `127.0.0.1:${app.grpcPort}`);
  });

  after(async () => {
    contacts.close();
    erasure.close();
    for (const fake of participants.values()) await fake.stop();
    await relay.stop();
    await app.stop();
    await participantsData.destroy();
    await dropTestDatabase(app.config.DB_URL);
  });

  let phones = 0;
  const newContact = async (org = orgId) => {
    phones += 1;
    const contact = await unary(
      contacts.createContact.bind(contacts),
      {
        input: { name: 'Ada', email: `ada-${newId()}@example.com`, phone: `+1555010${1000 + phones}`, identities: [] },
      },
      as(apiKeyPrincipal(org, [ApiScope.CONTACTS_MANAGE])),
    );
    await app.dataSource.manager.insert(PeopleFieldValueRow, {
      id: newId(),
      orgId: org,
      contactId: contact.id,
      definitionId: newId(),
      value: '"gold"',
      uniqueKey: null,
      createdAt: new Date(),
      updatedAt: new Date(),
    });
    participant('inbox').items.set(`${org}/${contact.id}`, 3);
    participant('flows').items.set(`${org}/${contact.id}`, 2);
    return contact;
  };
  const preview = (contactId: string, principal: Principal = eraser) =>
    unary(erasure.previewErase.bind(erasure), { contactId }, as(principal));
  const erase = (contactId: string, principal: Principal = eraser) =>
    unary(erasure.eraseContact.bind(erasure), { contactId }, as(principal));
  const refusal = async (call: Promise<unknown>) => {
    const error = await rejection(call);
    return { code: error.code, field: error.metadata?.get('x-svc-error-field')[0], details: error.details };
  };
  const countsOf = (receipt: ErasureReceipt, service: string) =>
    receipt.services.find((s) => s.service === service)?.counts;

  it('previews every participant in order: its own part counted here, the others asked', async () => {
    const contact = await newContact();
    const answer = await preview(contact.id);
    expect(answer.contactId).to.equal(contact.id);
    expect(answer.services.map((s) => s.service)).to.deep.equal([...ERASURE_PARTICIPANTS]);
    expect(answer.services[0]?.counts).to.deep.equal([
      { kind: 'contact', count: 1 },
      { kind: 'identities', count: 2 },
      { kind: 'field_values', count: 1 },
    ]);
    expect(answer.services.find((s) => s.service === 'inbox')?.counts).to.deep.equal([{ kind: 'items', count: 3 }]);
    expect(answer.services.find((s) => s.service === 'channels')?.counts).to.deep.equal([{ kind: 'items', count: 0 }]);
  });

  it('refuses a preview some participant does not answer: UNAVAILABLE naming it', async () => {
    const contact = await newContact();
    const down = participant('flows');
    await down.grpc.stop(100);
    try {
      const refused = await refusal(preview(contact.id));
      expect(refused.code).to.equal(14);
      expect(refused.details).to.equal('the erasure cannot be previewed: flows did not answer');
    } finally {
      down.grpc = new GrpcServer();
      await down.serve();
    }
  });

  it('erases: the contact is unreadable at once, the receipt completes once every participant confirmed', async () => {
    const contact = await newContact();
    const first = await erase(contact.id);
    expect(first).to.deep.include({
      contactId: contact.id,
      requestedBy: eraser.keyId,
      status: ErasureStatus.IN_PROGRESS,
    });
    expect(first.services.map((s) => s.service)).to.deep.equal([...ERASURE_PARTICIPANTS]);
    expect(first.services[0]).to.deep.include({
      service: 'contacts',
      confirmed: true,
      counts: [
        { kind: 'contact', count: 1 },
        { kind: 'identities', count: 2 },
        { kind: 'field_values', count: 1 },
      ],
    });
    const reader = apiKeyPrincipal(orgId, [ApiScope.CONTACTS_READ]);
    expect((await refusal(unary(contacts.getContact.bind(contacts), { id: contact.id }, as(reader)))).code).to.equal(5);
    const lookup = await unary(
      contacts.lookupContact.bind(contacts),
      { identifierType: IdentifierType.EMAIL, value: contact.email ?? '' },
      as(systemPrincipal(orgId)),
    );
    expect(lookup.found).to.equal(false);
    expect(await app.dataSource.manager.countBy(PeopleFieldValueRow, { contactId: contact.id })).to.equal(0);

    // Every participant but the late one confirms; the receipt waits for it.
    const waiting = await eventually(async () => {
      const receipt = await erase(contact.id);
      return receipt.services.filter((s) => s.confirmed).length === ERASURE_PARTICIPANTS.length - 1 && receipt;
    });
    expect(waiting.id).to.equal(first.id);
    expect(waiting.status).to.equal(ErasureStatus.IN_PROGRESS);
    expect(countsOf(waiting, 'inbox')).to.deep.equal([{ kind: 'items', count: 3 }]);
    expect(waiting.services.find((s) => s.service === 'widget-api')).to.deep.include({ confirmed: false, counts: [] });
    expect(participant('inbox').items.has(`${orgId}/${contact.id}`)).to.equal(false);

    await late.consume(app, participantsData, relay);
    const completed = await eventually(async () => {
      const receipt = await erase(contact.id);
      return receipt.status === ErasureStatus.COMPLETED && receipt;
    });
    expect(completed.id).to.equal(first.id);
    expect(completed.completedAt).to.be.a('string');
    expect(completed.services.every((s) => s.confirmed)).to.equal(true);
  });

  it('keeps the first confirmation of each participant: a redelivered request confirms zeros, changing nothing', async () => {
    const contact = await newContact();
    const receipt = await erase(contact.id);
    const done = await eventually(async () => {
      const current = await erase(contact.id);
      return current.status === ErasureStatus.COMPLETED && current;
    });
    await publishEraseRequest(app.bus, app.config.KAFKA_TOPIC_PREFIX, {
      erasureId: receipt.id,
      orgId,
      contactId: contact.id,
    });
    // The redelivery's confirmations are consumed after this second request's (same partition, in order).
    const marker = await newContact();
    await erase(marker.id);
    await eventually(async () => (await erase(marker.id)).status === ErasureStatus.COMPLETED);
    expect(await erase(contact.id)).to.deep.equal(done);
    expect(countsOf(done, 'flows')).to.deep.equal([{ kind: 'items', count: 2 }]);
  });

  it('ignores a confirmation naming another org or a service that is no participant', async () => {
    const contact = await newContact();
    const receipt = await erase(contact.id);
    const prefix = app.config.KAFKA_TOPIC_PREFIX;
    const foreign = { erasureId: receipt.id, orgId: otherOrg, contactId: contact.id };
    const own = { erasureId: receipt.id, orgId, contactId: contact.id };
    const bogus = [{ kind: 'items', count: 99 }];
    await publishEraseConfirmation(app.bus, prefix, foreign, 'widget-api', bogus);
    await publishEraseConfirmation(app.bus, prefix, own, 'billing', bogus);
    const completed = await eventually(async () => {
      const current = await erase(contact.id);
      return current.status === ErasureStatus.COMPLETED && current;
    });
    expect(completed.services.map((s) => s.service)).to.deep.equal([...ERASURE_PARTICIPANTS]);
    expect(countsOf(completed, 'widget-api')).to.deep.equal([{ kind: 'items', count: 0 }]);
  });

  it('answers one receipt to requests racing for the same contact', async () => {
    const contact = await newContact();
    const receipts = await Promise.all([erase(contact.id), erase(contact.id), erase(contact.id)]);
    expect(new Set(receipts.map((r) => r.id)).size).to.equal(1);
  });

  it('refuses without CONTACTS_ERASE, another org’s contact, an unknown contact and a malformed id', async () => {
    const contact = await newContact();
    const manager = apiKeyPrincipal(orgId, [ApiScope.CONTACTS_READ, ApiScope.CONTACTS_MANAGE]);
    for (const call of [() => preview(contact.id, manager), () => erase(contact.id, manager)])
      expect((await refusal(call())).code).to.equal(7);
    const stranger = apiKeyPrincipal(otherOrg, [ApiScope.CONTACTS_ERASE]);
    for (const call of [
      () => preview(contact.id, stranger),
      () => erase(contact.id, stranger),
      () => erase(newId()),
      () => preview(newId()),
    ])
      expect(await refusal(call())).to.deep.equal({ code: 5, field: 'contactId', details: 'contact not found' });
    for (const call of [() => preview('nope'), () => erase('nope')])
      expect(await refusal(call())).to.deep.include({ code: 3, field: 'contactId' });
    const reader = apiKeyPrincipal(orgId, [ApiScope.CONTACTS_READ]);
    expect((await unary(contacts.getContact.bind(contacts), { id: contact.id }, as(reader))).id).to.equal(contact.id);
  });
});
