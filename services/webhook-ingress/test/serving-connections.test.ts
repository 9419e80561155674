import { expect } from 'chai';
import { PrincipalKind, dropTestDatabase, newId, principalFor, testEnv } from '@svc/kit';
import { InboundAuthMode, InboundConnectionStatus, InboundIdentifierType } from '@svc/proto/webhooks/v1';
import { WebhookIngressApp, ingressConfig } from '../src';
import { Connections } from '../src/domain/connections';
import { ServingConnections } from '../src/domain/serving-connections';
import { ConnectionRow } from '../src/entities';
import { SecretKeyring, newKeyEntry, parseKeys } from '@svc/kit';
import { SigningSecrets, resealSigningSecrets } from '../src/secrets/signing-secrets';

describe('WebhookIngress.ServingConnections', () => {
  let app: WebhookIngressApp;
  let connections: Connections;
  let serving: ServingConnections;
  const firstKey = parseKeys(newKeyEntry('k1'));
  const keyring = new SecretKeyring(firstKey);
  const orgId = newId();
  const member = principalFor(PrincipalKind.MEMBER_SESSION, orgId);

  before(async () => {
    app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress_serving')));
    await app.start();
    connections = new Connections(app.dataSource, 4, new SigningSecrets(keyring), async () => []);
    serving = new ServingConnections(app.dataSource);
  });
  after(async () => {
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const create = async (authMode: InboundAuthMode) =>
    (
      await connections.create(member, {
        name: 'serving',
        authMode,
        signingSecret: authMode === InboundAuthMode.SHARED_SECRET ? undefined : 'whsec_first-signing-secret',
        identifierType: InboundIdentifierType.EMAIL,
        identifierPath: '$.email',
      })
    ).row;

  it('returns the same row while nothing changed, and null for an id nobody has', async () => {
    const { id } = await create(InboundAuthMode.PAYMENTS_PROVIDER);
    const first = await serving.get(id);
    expect(first?.id).to.equal(id);
    expect(await serving.get(id)).to.equal(first);
    expect(await serving.get(newId())).to.equal(null);
  });

  // Every way the service changes a connection must reach the next request: each one moves the revision.
  const changes: [string, (id: string) => Promise<unknown>, (row: ServingConnectionFields) => unknown][] = [
    ['pause', (id) => connections.setStatus(member, id, InboundConnectionStatus.PAUSED), (row) => row.status],
    ['open the capture tunnel', (id) => connections.openCapture(member, id), (row) => row.captureUntil?.getTime()],
    [
      'a new signing secret',
      (id) => connections.update(member, id, { signingSecret: 'whsec_second-signing-secret' }),
      (row) => row.signingSecretSealed,
    ],
    [
      'a new identifier path',
      (id) => connections.update(member, id, { identifierPath: '$.customer.email' }),
      (row) => row.identifierPath,
    ],
    ['an injected sample', (id) => connections.inject(member, id, '{"email":"a@example.com"}'), (row) => row.revision],
    [
      're-sealing under a new key',
      () => resealSigningSecrets(app.dataSource, new SecretKeyring([...parseKeys(newKeyEntry('k2')), ...firstKey])),
      (row) => row.signingSecretSealed,
    ],
  ];
  for (const [change, apply, observed] of changes)
    it(`serves the next request with the row after ${change}`, async () => {
      const { id } = await create(InboundAuthMode.PAYMENTS_PROVIDER);
      const before = await serving.get(id);
      if (!before) throw new Error('connection not served');
      await apply(id);
      const after = await serving.get(id);
      const stored = await app.dataSource.getRepository(ConnectionRow).findOneByOrFail({ id });
      expect(after?.revision).to.be.greaterThan(before.revision);
      expect(after && observed(after)).to.deep.equal(observed(stored));
      expect(observed(stored)).not.to.deep.equal(observed(before));
    });

  it('serves the next request with the row after a Shared Secret rotation and a resume', async () => {
    const { id } = await create(InboundAuthMode.SHARED_SECRET);
    const before = await serving.get(id);
    await connections.rotate(member, id);
    const rotated = await serving.get(id);
    expect(rotated?.secretVersion).to.equal((before?.secretVersion ?? 0) + 1);
    expect(rotated?.secretHash).not.to.equal(before?.secretHash);
    await connections.setStatus(member, id, InboundConnectionStatus.PAUSED);
    expect((await serving.get(id))?.status).to.equal(InboundConnectionStatus.PAUSED);
    await connections.setStatus(member, id, InboundConnectionStatus.ACTIVE);
    expect((await serving.get(id))?.status).to.equal(InboundConnectionStatus.ACTIVE);
  });

  it('answers null once the connection is deleted', async () => {
    const { id } = await create(InboundAuthMode.PAYMENTS_PROVIDER);
    expect(await serving.get(id)).not.to.equal(null);
    await connections.delete(member, id);
    expect(await serving.get(id)).to.equal(null);
  });
});

type ServingConnectionFields = NonNullable<Awaited<ReturnType<ServingConnections['get']>>>;
