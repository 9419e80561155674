import {
  ApiScope,
  PrincipalKind,
  apiKeyPrincipal,
  dropTestDatabase,
  grpcClient,
  newId,
  principalFor,
  systemPrincipal,
  testEnv,
  unary,
  callerMetadata,
} from '@svc/kit';
import { IdentityForTests } from '@svc/identity';
import { InboxApp, inboxConfig } from '@svc/inbox';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { LabelServiceClient } from '@svc/proto/inbox/v1/labels';
import { InboundIdentifierType, WebhookIngressServiceClient } from '@svc/proto/webhooks/v1';
import { WebhookIngressApp, ingressConfig } from '@svc/webhook-ingress';
import { FlowsServiceClient } from '@svc/proto/flows/v1';
import { FlowsApp, flowsConfig, type FlowsDeps } from '../src';

/**
 * The real owners of what a flow names (identity's members, the inbox's labels and chats, webhook-ingress's
 * connections), verifying with the test process's JWKS as in a deployment, so flows can ask them as SYSTEM.
 */
export class OrgPeers {
  readonly identity: IdentityForTests;
  private readonly inbox: InboxApp;
  private readonly ingress: WebhookIngressApp;
  private clients:
    { inbox: InboxServiceClient; labels: LabelServiceClient; ingress: WebhookIngressServiceClient } | undefined;

  constructor() {
    const env = (service: string) => testEnv(service);
    this.identity = new IdentityForTests();
    this.inbox = new InboxApp(inboxConfig(env('inbox')), {
      serveHttp: false,
      identityAddress: () => this.identity.address,
    });
    this.ingress = new WebhookIngressApp(ingressConfig(env('webhook_ingress')), { serveHttp: false });
  }

  /** Where the flows service under test finds them. */
  get addresses(): Pick<FlowsDeps, 'identityAddress' | 'inboxAddress' | 'webhooksAddress'> {
    return {
      identityAddress: () => this.identity.address,
      inboxAddress: () => `127.0.0.1:${this.inbox.grpcPort}`,
      webhooksAddress: () => `127.0.0.1:${this.ingress.grpcPort}`,
    };
  }

  async start(): Promise<void> {
    await Promise.all([this.identity.start(), this.inbox.start(), this.ingress.start()]);
    const inbox = `127.0.0.1:${this.inbox.grpcPort}`;
    this.clients = {
      inbox: grpcClient(InboxServiceClient, inbox),
      labels: grpcClient(LabelServiceClient, inbox),
      ingress: grpcClient(WebhookIngressServiceClient, `127.0.0.1:${this.ingress.grpcPort}`),
    };
  }

  async dispose(): Promise<void> {
    for (const client of Object.values(this.clients ?? {})) client.close();
    await Promise.all([this.inbox.stop(), this.ingress.stop()]);
    await this.identity.dispose();
    await dropTestDatabase(this.inbox.config.DB_URL);
    await dropTestDatabase(this.ingress.config.DB_URL);
  }

  private get client() {
    if (!this.clients) throw new Error('OrgPeers not started');
    return this.clients;
  }

  /** A label of the org, created in the inbox. */
  async newLabel(orgId: string): Promise<string> {
    const labels = this.client.labels;
    const key = callerMetadata(apiKeyPrincipal(orgId, [ApiScope.CONVERSATIONS_MANAGE]), 'inbox');
    return (await unary(labels.createLabel.bind(labels), { name: `label ${newId()}` }, key))._id;
  }

  /** A chat of the org, opened in the inbox. */
  async newChat(orgId: string): Promise<string> {
    const inbox = this.client.inbox;
    const system = callerMetadata(systemPrincipal(orgId), 'inbox');
    return (await unary(inbox.openChat.bind(inbox), { channelId: newId(), contact: { _id: newId() } }, system))._id;
  }

  /** An inbound connection of the org, created in webhook-ingress. */
  async newConnection(orgId: string): Promise<string> {
    const ingress = this.client.ingress;
    const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'webhook-ingress');
    const input = { name: 'orders', identifierType: InboundIdentifierType.EMAIL, identifierPath: '$.email' };
    return (await unary(ingress.createInboundConnection.bind(ingress), { input }, member))._id;
  }

  async deleteConnection(orgId: string, id: string): Promise<void> {
    const ingress = this.client.ingress;
    const member = callerMetadata(principalFor(PrincipalKind.MEMBER_SESSION, orgId), 'webhook-ingress');
    await unary(ingress.deleteInboundConnection.bind(ingress), { id }, member);
  }
}

/** A flows service wired to real owners of what flows name, and a client of it. */
export async function startFlowsWithPeers(): Promise<{
  app: FlowsApp;
  client: FlowsServiceClient;
  peers: OrgPeers;
  stop(): Promise<void>;
}> {
  const config = flowsConfig(testEnv('flows'));
  // One JWKS, as in a deployment: the owners of what flows name trust the SYSTEM principal flows signs.
  const peers = new OrgPeers();
  await peers.start();
  const app = new FlowsApp(config, peers.addresses);
  await app.start();
  const client = grpcClient(FlowsServiceClient, `127.0.0.1:${app.grpcPort}`);
  return {
    app,
    client,
    peers,
    stop: async () => {
      client.close();
      await app.stop();
      await peers.dispose();
      await dropTestDatabase(app.config.DB_URL);
    },
  };
}
