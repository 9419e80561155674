import type { DataSource } from 'typeorm';
import {
  ERASURE_PARTICIPANT_GRPC_SERVICE,
  ERASURE_TOPIC,
  ErasureParticipant,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  LookupCache,
  contactRowsPart,
  Peer,
  callPolicyOf,
  channelsOfOrg,
  ServiceApp,
  openDataSource,
  systemPrincipal,
  unary,
  type RawRoute,
  type ServiceAppDeps,
  type Subscription,
  stopTogether,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { FlowsServiceClient } from '@svc/proto/flows/v1';
import { WebhookIngressServiceService, type InboundIdentifierType } from '@svc/proto/webhooks/v1';
import { SharedSecretVerifier } from './auth/shared-secret';
import type { IngressConfig } from './config';
import { ingressData } from './data';
import { Connections } from './domain/connections';
import { RECEIVED_TOPIC } from './domain/events';
import { subscribeCacheInvalidation } from './domain/cache-invalidation';
import { INGRESS_CONTACT_ROWS } from './domain/erasure';
import { ingressOrgPart } from './domain/org-erasure';
import { GroupCommit } from './domain/group-commit';

import { InboundPipeline, type Resolvers } from './domain/pipeline';
import { scheduleRetention } from './domain/retention';
import { ingressService } from './grpc/ingress-handlers';
import { ingressRoute } from './http/ingress-route';
import { loadKeyring, type LoadedKeyring } from './secrets/key-source';
import type { SecretKeyring } from '@svc/kit';
import { SigningSecrets, resealSigningSecrets } from './secrets/signing-secrets';

export interface IngressDeps extends ServiceAppDeps {
  /** Where contacts and flows listen, read at first use (the embedded stack knows them only after start). */
  contactsAddress?: () => string;
  flowsAddress?: () => string;
  /** Where channels listens, read at first use (the embedded stack starts channels after webhook-ingress). */
  channelsAddress?: () => string;
}

const flowsCacheKey = (orgId: string, connectionId: string) => `${orgId}\u0000${connectionId}`;

/**
 * Inbound webhooks: connection management over gRPC (dashboard only) and the public `POST /webhooks/in/:id` on its
 * HTTP port (in the embedded stack, mounted on the shared port through `router`).
 */
export class WebhookIngressApp extends ServiceApp<IngressConfig> {
  private readonly contacts: Peer<ContactsServiceClient>;
  private readonly flows: Peer<FlowsServiceClient>;
  private readonly channels: Peer<ChannelsServiceClient>;
  private readonly sharedSecrets: SharedSecretVerifier;
  private keys: LoadedKeyring | undefined;
  private readonly contactCache: LookupCache<{ contactId: string; latestChatId: string } | undefined>;
  private readonly flowsCache: LookupCache<{ flowId: string; name: string }[]>;
  private commits: GroupCommit | undefined;
  private pipeline: InboundPipeline | undefined;
  private stopRetention: (() => void) | undefined;
  private cacheInvalidation: Subscription | undefined;
  private erasure: ErasureParticipant | undefined;
  private orgErasure: OrgErasureParticipant | undefined;
  /** The public route, served ahead of Koa (in the embedded stack too); valid once started. */
  readonly route: RawRoute = ingressRoute(() => {
    if (!this.pipeline) throw new Error('webhook-ingress is not started');
    return this.pipeline;
  });

  constructor(config: IngressConfig, deps: IngressDeps = {}) {
    super(
      {
        name: 'webhook-ingress',
        grpcServices: ['svc.webhooks.v1.WebhookIngressService', ERASURE_PARTICIPANT_GRPC_SERVICE],
        data: ingressData,
        publishes: [RECEIVED_TOPIC, ERASURE_TOPIC, ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    const policy = callPolicyOf(config);
    this.contacts = new Peer(ContactsServiceClient, deps.contactsAddress ?? (() => config.CONTACTS_GRPC_URL), policy);
    this.flows = new Peer(FlowsServiceClient, deps.flowsAddress ?? (() => config.FLOWS_GRPC_URL), policy);
    this.channels = new Peer(ChannelsServiceClient, deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL), policy);
    this.sharedSecrets = new SharedSecretVerifier(config.INGRESS_BCRYPT_CONCURRENCY, config.INGRESS_BCRYPT_QUEUE);
    // Positive answers only (docs/decisions/0015): an unknown contact or a connection without a published flow is
    // asked again on the next request, so a contact created or a flow published just now takes effect at once.
    this.contactCache = new LookupCache({
      ttlMs: config.INGRESS_CONTACT_CACHE_MS,
      keep: (found) => found !== undefined,
      // Contact ids are unique across orgs: the id alone names what to evict.
      tagOf: (found) => found?.contactId,
    });
    this.flowsCache = new LookupCache({ ttlMs: config.INGRESS_FLOWS_CACHE_MS, keep: (flows) => flows.length > 0 });
  }

  private readonly resolvers: Resolvers = {
    lookupContact: (orgId, type: InboundIdentifierType, value, channelIntegrationId) =>
      this.contactCache.get(`${orgId}\u0000${type}\u0000${channelIntegrationId ?? ''}\u0000${value}`, async () => {
        const client = this.contacts.get();
        const found = await unary(
          client.lookupContact.bind(client),
          {
            identifierType: IdentifierType[type as keyof typeof IdentifierType],
            value,
            channelIntegrationId: channelIntegrationId ?? undefined,
          },
          this.signer.metadata(systemPrincipal(orgId), 'contacts'),
        );
        return found.found ? { contactId: found.contactId, latestChatId: found.latestChatId } : undefined;
      }),
    webhookFlows: (orgId, connectionId) =>
      this.flowsCache.get(flowsCacheKey(orgId, connectionId), async () => {
        const client = this.flows.get();
        const response = await unary(
          client.listWebhookFlows.bind(client),
          { connectionId },
          this.signer.metadata(systemPrincipal(orgId), 'flows'),
        );
        return response.flows;
      }),
  };

  /** Drops every cached lookup of a deprovisioned org (both caches' keys start with the org id). */
  private evictOrg(orgId: string): void {
    const ofOrg = (key: string) => key.startsWith(`${orgId}\u0000`);
    this.contactCache.evictWhere(ofOrg);
    this.flowsCache.evictWhere(ofOrg);
  }

  protected register(): void {
    // The replica that erases drops its cached lookups of the contact at once; every replica does on the request.
    const evictContact = ({ contactId }: { contactId: string }) =>
      Promise.resolve(this.contactCache.evictTag(contactId));
    this.erasure = new ErasureParticipant(
      this,
      contactRowsPart('webhook-ingress', this.dataSource, INGRESS_CONTACT_ROWS, evictContact),
    );
    this.orgErasure = new OrgErasureParticipant(
      this,
      ingressOrgPart({ afterCommit: ({ orgId }) => Promise.resolve(this.evictOrg(orgId)) }),
    );
    // Loaded when serving, not at construction: the migration Job may run without keys (docs/decisions/0014).
    this.keys = loadKeyring(this.config);
    const signingSecrets = new SigningSecrets(this.keys.keyring);
    const connections = new Connections(
      this.dataSource,
      this.config.BCRYPT_COST,
      signingSecrets,
      channelsOfOrg(this.channels, () => this.signer),
    );
    this.commits = new GroupCommit(
      this.dataSource,
      this.config.INGRESS_COMMIT_BATCH,
      () => this.relay.nudge(),
      this.logger.child({ component: 'group-commit' }),
    );
    this.pipeline = new InboundPipeline(
      this.dataSource,
      this.commits,
      this.sharedSecrets,
      signingSecrets,
      this.resolvers,
      this.logger.child({ component: 'inbound' }),
    );
    this.grpc.add(
      WebhookIngressServiceService,
      ingressService(connections, { verifier: this.verifier, logger: this.logger }),
      'svc.webhooks.v1.WebhookIngressService',
    );
  }

  protected override rawRoutes(): RawRoute[] {
    return [this.route];
  }

  protected override async startWorkers(): Promise<void> {
    if (this.keys) {
      const { keyring, source } = this.keys;
      this.logger.info({ keys: keyring.keyIds, source }, 'webhook secrets keyring loaded');
      await this.reseal(this.dataSource, keyring);
    }
    // A flow (un)published or moved, a contact's identities or chats changed: applies on the next request.
    this.cacheInvalidation = await subscribeCacheInvalidation(this.bus, this.config.KAFKA_TOPIC_PREFIX, {
      flowsChanged: (orgId, connectionId) => this.flowsCache.evict(flowsCacheKey(orgId, connectionId)),
      contactChanged: (_orgId, contactId) => this.contactCache.evictTag(contactId),
      orgErased: (orgId) => this.evictOrg(orgId),
    });
    await this.erasure?.start();
    await this.orgErasure?.start();
    this.stopRetention = scheduleRetention(this.dataSource, this.config.INGRESS_RETENTION_INTERVAL_MS, this.logger);
  }

  protected override async stopWorkers(): Promise<void> {
    await stopTogether([this.cacheInvalidation, this.erasure, this.orgErasure]);
    this.stopRetention?.();
    await this.commits?.flush();
    this.contacts.close();
    this.flows.close();
    this.channels.close();
  }

  /**
   * The migration Job (`main.js migrate`): the schema migrations, then — when the Job has the keys — sealing of
   * plaintext signing secrets and re-sealing under the active key. Without keys the serving pods do it at start.
   */
  override async migrate(): Promise<void> {
    await super.migrate();
    if (!this.config.WEBHOOK_SECRETS_KEYS) {
      this.logger.info('WEBHOOK_SECRETS_KEYS not set for the migration: signing secrets are sealed at start-up');
      return;
    }
    const dataSource = await openDataSource(this.dataSourceSpec, { migrate: false });
    try {
      await this.reseal(dataSource, loadKeyring(this.config).keyring);
    } finally {
      await dataSource.destroy();
    }
  }

  /** Seals plaintext signing secrets left from before 0014 and re-seals others under the active key (idempotent). */
  private async reseal(dataSource: DataSource, keyring: SecretKeyring): Promise<void> {
    const report = await resealSigningSecrets(dataSource, keyring);
    if (report.sealed || report.rewrapped)
      this.logger.info(
        { sealed: report.sealed, rewrapped: report.rewrapped, activeKey: keyring.activeKeyId },
        'signing secrets sealed under the active key',
      );
    for (const { connectionId, error } of report.unreadable)
      this.logger.error({ connectionId }, `signing secret cannot be opened: ${error}`);
  }
}
