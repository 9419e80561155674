import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import {
  PrincipalKind,
  dropTestDatabase,
  grpcClient,
  newId,
  principalFor,
  rejection,
  systemPrincipal,
  testEnv,
  unary,
  callerMetadata,
} from '@svc/kit';
import { InboundIdentifierType, WebhookIngressServiceClient } from '@svc/proto/webhooks/v1';
import { WebhookIngressApp, ingressConfig } from '../src';

describe('WebhookIngressService.FindInboundConnections', () => {
  let app: WebhookIngressApp;
  let client: WebhookIngressServiceClient;

  before(async () => {
    app = new WebhookIngressApp(ingressConfig(testEnv('webhook_ingress_find')), { serveHttp: false });
    await app.start();
    client = grpcClient(WebhookIngressServiceClient, `127.0.0.1:${app.grpcPort}`);
  });

  after(async () => {
    client.close();
    await app.stop();
    await dropTestDatabase(app.config.DB_URL);
  });

  const connectionOf = async (orgId: string) => {
    const input = { name: 'orders', identifierType: InboundIdentifierType.EMAIL, identifierPath: '$.email' };
    const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'webhook-ingress');
    return (await unary(client.createInboundConnection.bind(client), { input }, member))._id;
  };

  it("answers only the org's connections among those asked, to services only", async () => {
    const orgId = newId();
    const [own, theirs] = [await connectionOf(orgId), await connectionOf(newId())];
    const found = await unary(
      client.findInboundConnections.bind(client),
      { connectionIds: [theirs, own, newId(), 'x'] },
      callerMetadata(systemPrincipal(orgId), 'webhook-ingress'),
    );
    expect(found.connectionIds).to.deep.equal([own]);
    const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'webhook-ingress');
    const refused = await rejection(
      unary(client.findInboundConnections.bind(client), { connectionIds: [own] }, member),
    );
    expect(refused.code).to.equal(status.PERMISSION_DENIED);
  });

  it('refuses more than 100 ids in one call', async () => {
    const ids = Array.from({ length: 101 }, () => newId());
    const error = await rejection(
      unary(
        client.findInboundConnections.bind(client),
        { connectionIds: ids },
        callerMetadata(systemPrincipal(newId()), 'webhook-ingress'),
      ),
    );
    expect(error.code).to.equal(status.INVALID_ARGUMENT);
  });
});
