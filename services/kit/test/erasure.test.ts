import { expect } from 'chai';
import type { ServiceError } from '@grpc/grpc-js';
import { Column, Entity, PrimaryColumn, type DataSource, type EntityManager } from 'typeorm';
import { ErasureParticipantServiceClient } from '@svc/proto/erasure/v1';
import {
  ApiScope,
  EmbeddedBus,
  ErasureConfirmations,
  GrpcServer,
  OutboxEvent,
  OutboxRelay,
  PrincipalKind,
  PrincipalVerifier,
  checkErasurePart,
  createLogger,
  eventually,
  erasureParticipantService,
  jwksSchema,
  kindCounts,
  newId,
  principalFor,
  publishEraseRequest,
  runErasure,
  subscribeErasure,
  systemPrincipal,
  testErasure,
  testSigner,
  testTrustKeys,
  unary,
  grpcClient,
  type ContactErasure,
  type ErasurePart,
} from '../src';
import { memoryDataSource } from './memory-data-source';

@Entity('erasure_test_notes')
class NoteRow {
  @PrimaryColumn('varchar', { length: 24 }) id!: string;
  @Column('varchar', { length: 24 }) orgId!: string;
  @Column('varchar', { length: 24 }) contactId!: string;
}

const logger = createLogger('kit-test', 'silent');
const orgId = newId();
const otherOrg = newId();

/** A participant keeping notes about contacts: what every real part does, on one table. */
class NotesPart implements ErasurePart {
  readonly service = 'flows' as const;
  failNext = false;
  constructor(private readonly dataSource: DataSource) {}

  async preview(org: string, contactId: string) {
    return kindCounts(['notes'], { notes: await this.dataSource.manager.countBy(NoteRow, { orgId: org, contactId }) });
  }

  async erase(manager: EntityManager, erasure: ContactErasure) {
    const deleted = await manager.delete(NoteRow, { orgId: erasure.orgId, contactId: erasure.contactId });
    if (this.failNext) {
      this.failNext = false;
      throw new Error('killed mid-way');
    }
    return { counts: kindCounts(['notes'], { notes: deleted.affected ?? 0 }) };
  }
}

describe('kit erasure chassis (docs/erasure.md)', () => {
  let dataSource: DataSource;
  let part: NotesPart;

  const addNotes = async (org: string, contactId: string, n: number) => {
    for (let i = 0; i < n; i++) await dataSource.manager.insert(NoteRow, { id: newId(), orgId: org, contactId });
  };

  beforeEach(async () => {
    dataSource = await memoryDataSource([OutboxEvent, NoteRow]);
    part = new NotesPart(dataSource);
  });

  afterEach(() => dataSource.destroy());

  it('lists every kind with zeros (kindCounts)', () => {
    expect(kindCounts(['a', 'b'], { b: 2 })).to.deep.equal([
      { kind: 'a', count: 0 },
      { kind: 'b', count: 2 },
    ]);
  });

  it('erases and enqueues the confirmation in one transaction: a failure leaves both undone', async () => {
    const contactId = newId();
    await addNotes(orgId, contactId, 2);
    part.failNext = true;
    const erasure = testErasure(orgId, contactId);
    const failed = await runErasure(dataSource, part, erasure).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(failed).to.equal('killed mid-way');
    expect(await dataSource.manager.countBy(NoteRow, { contactId })).to.equal(2);
    expect(await dataSource.manager.count(OutboxEvent)).to.equal(0);
    const erased = await runErasure(dataSource, part, erasure);
    expect(erased.counts).to.deep.equal([{ kind: 'notes', count: 2 }]);
    expect(await dataSource.manager.countBy(NoteRow, { contactId })).to.equal(0);
    expect(await dataSource.manager.count(OutboxEvent)).to.equal(1);
  });

  it('checks a part: preview = erased, nothing left, erasing again confirms zeros; another org untouched', async () => {
    const contactId = newId();
    await addNotes(orgId, contactId, 3);
    await addNotes(otherOrg, contactId, 1);
    const counts = await checkErasurePart(dataSource, part, testErasure(orgId, contactId));
    expect(counts).to.deep.equal([{ kind: 'notes', count: 3 }]);
    expect(await dataSource.manager.countBy(NoteRow, { orgId: otherOrg })).to.equal(1);
  });

  it('checkErasurePart refuses a part whose preview does not count what it erases', async () => {
    const contactId = newId();
    await addNotes(orgId, contactId, 1);
    const lying: ErasurePart = { service: 'flows', preview: async () => [], erase: (m, e) => part.erase(m, e) };
    const refused = await checkErasurePart(dataSource, lying, testErasure(orgId, contactId)).then(
      () => '',
      (error: Error) => error.message,
    );
    expect(refused).to.match(/^flows: erased .*previewed/);
  });

  it('consumes erase requests, confirms each on the bus, and confirms zeros when one is redelivered', async () => {
    const bus = new EmbeddedBus({ retry: { backoffMs: 1 } });
    await bus.start();
    const relay = new OutboxRelay(dataSource, bus, logger);
    relay.start();
    const confirmations = await new ErasureConfirmations().start(bus, '');
    try {
      const contactId = newId();
      await addNotes(orgId, contactId, 2);
      // The first attempt dies mid-way (nothing committed); the bus redelivers and the erasure finishes.
      part.failNext = true;
      const subscription = await subscribeErasure(bus, dataSource, relay, part, '', logger);
      const erasure = testErasure(orgId, contactId);
      await publishEraseRequest(bus, '', erasure);
      const confirmed = await confirmations.waitFor(erasure.erasureId, 'flows');
      expect(confirmed).to.deep.include({ orgId, counts: [{ kind: 'notes', count: 2 }] });
      await publishEraseRequest(bus, '', erasure);
      await eventually(async () => confirmations.of(erasure.erasureId, 'flows').length >= 2);
      expect(confirmations.of(erasure.erasureId, 'flows')[1]?.counts).to.deep.equal([{ kind: 'notes', count: 0 }]);
      await subscription.stop();
    } finally {
      await confirmations.stop();
      await relay.stop();
      await bus.stop();
    }
  });

  it('serves PreviewErasure to services of the installation only, scoped to the caller org', async () => {
    const contactId = newId();
    await addNotes(orgId, contactId, 2);
    const server = new GrpcServer();
    const verifier = new PrincipalVerifier('flows', jwksSchema.parse(testTrustKeys().jwks));
    server.add(ErasureParticipantServiceClient.service, erasureParticipantService(part, { verifier, logger }));
    const port = await server.listen('127.0.0.1', 0);
    const client = grpcClient(ErasureParticipantServiceClient, `127.0.0.1:${port}`);
    const preview = (principal = systemPrincipal(orgId), id = contactId) =>
      unary(client.previewErasure.bind(client), { contactId: id }, testSigner('contacts').metadata(principal, 'flows'));
    const code = (call: Promise<unknown>) =>
      call.then(
        () => 0,
        (error: ServiceError) => error.code,
      );
    try {
      expect(await preview()).to.deep.equal({ service: 'flows', counts: [{ kind: 'notes', count: 2 }] });
      expect((await preview(systemPrincipal(otherOrg))).counts).to.deep.equal([{ kind: 'notes', count: 0 }]);
      expect(await code(preview(systemPrincipal(orgId), 'nope'))).to.equal(3); // INVALID_ARGUMENT
      const member = principalFor(PrincipalKind.MEMBER_SESSION, orgId, [ApiScope.CONTACTS_ERASE]);
      const asMember = unary(
        client.previewErasure.bind(client),
        { contactId },
        testSigner('gateway').metadata(member, 'flows'),
      );
      expect(await code(asMember)).to.equal(7); // PERMISSION_DENIED
    } finally {
      client.close();
      await server.stop(100);
    }
  });
});
