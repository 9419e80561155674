import type Router from '@koa/router';
import { Peer, ServiceApp, systemPrincipal, unary, type ServiceAppDeps } from '@svc/kit';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { FlowsServiceClient } from '@svc/proto/flows/v1';
import { WebhookIngressServiceService, type InboundIdentifierType } from '@svc/proto/webhooks/v1';
import { SharedSecretVerifier } from './auth/shared-secret';
import type { IngressConfig } from './config';
import { ingressData } from './data';
import { Connections } from './domain/connections';
import { RECEIVED_TOPIC } from './domain/events';
import { InboundPipeline, type Resolvers } from './domain/pipeline';
import { scheduleRetention } from './domain/retention';
import { ingressService } from './grpc/ingress-handlers';
import { ingressRouter } from './http/ingress-router';

export interface IngressDeps extends ServiceAppDeps {
  /** Where contacts and flows listen, read at first use (the embedded stack knows them only after start). */
  contactsAddress?: () => string;
  flowsAddress?: () => string;
}

/**
 * Inbound webhooks: connection management over gRPC (dashboard only) and the public `POST /webhooks/in/:id` on its
 * HTTP port (in the embedded stack, mounted on the shared port through `router`).
 */
export class WebhookIngressApp extends ServiceApp<IngressConfig> {
  private readonly contacts: Peer<ContactsServiceClient>;
  private readonly flows: Peer<FlowsServiceClient>;
  private readonly sharedSecrets: SharedSecretVerifier;
  private pipeline: InboundPipeline | undefined;
  private stopRetention: (() => void) | undefined;
  /** The public route; valid once started. */
  readonly router: Router = ingressRouter(() => {
    if (!this.pipeline) throw new Error('webhook-ingress is not started');
    return this.pipeline;
  });

  constructor(config: IngressConfig, deps: IngressDeps = {}) {
    super(
      {
        name: 'webhook-ingress',
        grpcServices: ['svc.webhooks.v1.WebhookIngressService'],
        data: ingressData,
        publishes: [RECEIVED_TOPIC],
      },
      config,
      deps,
    );
    this.contacts = new Peer(ContactsServiceClient, deps.contactsAddress ?? (() => config.CONTACTS_GRPC_URL));
    this.flows = new Peer(FlowsServiceClient, deps.flowsAddress ?? (() => config.FLOWS_GRPC_URL));
    this.sharedSecrets = new SharedSecretVerifier(config.INGRESS_BCRYPT_CONCURRENCY);
  }

  private readonly resolvers: Resolvers = {
    lookupContact: async (orgId, type: InboundIdentifierType, value, channelIntegrationId) => {
      const client = this.contacts.get();
      const found = await unary(
        client.lookupContact.bind(client),
        {
          identifierType: IdentifierType[type as keyof typeof IdentifierType],
          value,
          channelIntegrationId: channelIntegrationId ?? undefined,
        },
        this.codec.metadata(systemPrincipal(orgId)),
      );
      return found.found ? { contactId: found.contactId, latestChatId: found.latestChatId } : undefined;
    },
    webhookFlows: async (orgId, connectionId) => {
      const client = this.flows.get();
      const response = await unary(
        client.listWebhookFlows.bind(client),
        { connectionId },
        this.codec.metadata(systemPrincipal(orgId)),
      );
      return response.flows;
    },
  };

  protected register(): void {
    const connections = new Connections(this.dataSource, this.config.BCRYPT_COST);
    this.pipeline = new InboundPipeline(
      this.dataSource,
      () => this.relay,
      this.sharedSecrets,
      this.resolvers,
      this.logger.child({ component: 'inbound' }),
    );
    this.grpc.add(
      WebhookIngressServiceService,
      ingressService(connections, { codec: this.codec, logger: this.logger }),
      'svc.webhooks.v1.WebhookIngressService',
    );
  }

  protected override httpRouters(): Router[] {
    return [this.router];
  }

  protected override async startWorkers(): Promise<void> {
    this.stopRetention = scheduleRetention(this.dataSource, this.config.INGRESS_RETENTION_INTERVAL_MS, this.logger);
  }

  protected override async stopWorkers(): Promise<void> {
    this.stopRetention?.();
    this.contacts.close();
    this.flows.close();
  }
}
