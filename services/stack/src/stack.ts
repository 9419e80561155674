import { createServer, type Server } from 'node:http';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Koa from 'koa';
import Router from '@koa/router';
import {
  type ServiceApp,
  createBus,
  createLogger,
  metricsRegistry,
  opsRouter,
  withRawRoutes,
  keepConnectionsAlive,
  type EventBus,
  type Logger,
  baseConfigSchema,
  generateTrustKeys,
  importSigningKey,
  ISSUERS,
  PrincipalSigner,
  type TrustKeys,
  IN_PROCESS_BUS,
  callPolicyOf,
  loadConfig,
} from '@svc/kit';
import { createGateway, gatewayTuningSchema, type Gateway, type GatewayTuning } from '@svc/gateway';
import { IdentityApp, identityConfigSchema } from '@svc/identity';
import { InboxApp, inboxConfigSchema } from '@svc/inbox';
import { ContactsApp, contactsConfigSchema } from '@svc/contacts';
import { FlowsApp, flowsConfigSchema } from '@svc/flows';
import { WebhookIngressApp, ingressConfigSchema } from '@svc/webhook-ingress';
import { WidgetApiApp, widgetConfigSchema } from '@svc/widget-api';
import { ChannelsApp, channelsConfigSchema } from '@svc/channels';
import { ContentApp, contentConfigSchema } from '@svc/content';
import { PartnerApp, partnerConfigSchema } from '@svc/partner';
import { embeddedMediaUrlSecret, type StackConfig } from './config';
import { demoPage } from './demo-page';
import { demoEnvPath, readDemoEnv } from './demo-seed';
import { landingPage } from './landing-page';
import { widgetAssetRoutes } from './widget-assets';

/** How tests run the stack besides its settings. */
export interface StackOptions {
  /** widget-api consumes no erasure request until `widget.consumeErasureRequests()` (a participant lagging behind). */
  holdWidgetErasureRequests?: boolean;
}

/**
 * The embedded default: every service, the gateway and the widget's files in one process, behind one port with the
 * paths an ingress routes in Kubernetes. Each service still runs its own gRPC server on a loopback port and owns its
 * own database (a SQLite file each by default); production runs the same apps as separate deployments.
 */
export class Stack {
  readonly logger: Logger;
  readonly bus: EventBus;
  readonly identity: IdentityApp;
  readonly inbox: InboxApp;
  readonly contacts: ContactsApp;
  readonly ingress: WebhookIngressApp;
  readonly flows: FlowsApp;
  readonly channels: ChannelsApp;
  readonly widget: WidgetApiApp;
  readonly content: ContentApp;
  readonly partner: PartnerApp;
  /** Every co-located service; a new service is constructed in the constructor and added here. */
  readonly apps: ServiceApp[];
  gateway!: Gateway;
  private server: Server | undefined;
  /** The keys of every issuer: ephemeral unless SVC_TRUST_KEYS gives them (docs/decisions/0065). */
  readonly trustKeys: TrustKeys;
  /** Signs as `stack`: the demo seed acting for its org. */
  readonly signer: PrincipalSigner;
  /** The gateway's signer (the seed logs its owner in and acts as them, as the gateway would). */
  readonly gatewaySigner: PrincipalSigner;
  private readonly gatewayTuning: GatewayTuning;

  /**
   * `serviceEnv`: the services' own settings (e.g. `INGRESS_FLOWS_CACHE_MS`, `MEDIA_MAX_BYTES`, `FLOWS_*`), read as
   * each deployable reads its environment; the stack's wiring (ports, databases, bus, secrets) overrides them.
   */
  constructor(
    readonly config: StackConfig,
    serviceEnv: NodeJS.ProcessEnv = {},
    options: StackOptions = {},
  ) {
    this.logger = createLogger('stack', config.LOG_LEVEL);
    this.trustKeys = (config.SVC_TRUST_KEYS as TrustKeys | undefined) ?? generateTrustKeys(ISSUERS);
    this.signer = this.signerOf('stack');
    this.gatewaySigner = this.signerOf('gateway');
    this.gatewayTuning = loadConfig(gatewayTuningSchema, serviceEnv);
    const base = {
      ...serviceEnv,
      LOG_LEVEL: config.LOG_LEVEL,
      // The one place the in-process bus is chosen: the embedded stack without brokers (deployables require them).
      KAFKA_BROKERS: config.KAFKA_BROKERS.trim() || IN_PROCESS_BUS,
      KAFKA_TOPIC_PREFIX: config.KAFKA_TOPIC_PREFIX,
      SVC_TRUST_JWKS: this.trustKeys.jwks,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      BCRYPT_COST: String(config.BCRYPT_COST),
    };
    const signingKey = (issuer: string) => ({ SVC_SIGNING_KEY: JSON.stringify(this.trustKeys.signing[issuer]) });
    const dbUrl = (service: string) =>
      (config.SVC_DB_URL_TEMPLATE ?? `sqlite:${path.join(config.SVC_DATA_DIR, '{service}.sqlite')}`).replaceAll(
        '{service}',
        service,
      );
    this.bus = createBus(
      baseConfigSchema
        .pick({
          KAFKA_BROKERS: true,
          KAFKA_CLIENT_ID: true,
          KAFKA_SSL: true,
          KAFKA_TOPIC_PREFIX: true,
          KAFKA_SESSION_TIMEOUT_MS: true,
          EMBEDDED_BUS_FILE: true,
          BUS_RETRY_ATTEMPTS: true,
          BUS_RETRY_BACKOFF_MS: true,
        })
        // The in-process bus's durable log sits next to the services' databases.
        .parse({ ...base, EMBEDDED_BUS_FILE: path.join(config.SVC_DATA_DIR, 'bus.sqlite') }),
      this.logger,
    );
    const deps = { bus: this.bus, serveHttp: false };
    const address = (app: ServiceApp) => () => `127.0.0.1:${app.grpcPort}`;
    this.identity = new IdentityApp(identityConfigSchema.parse({ ...base, DB_URL: dbUrl('identity') }), {
      ...deps,
      logger: createLogger('identity', config.LOG_LEVEL),
    });
    this.inbox = new InboxApp(
      inboxConfigSchema.parse({
        ...base,
        ...signingKey('inbox'),
        DB_URL: dbUrl('inbox'),
        MEDIA_URL_SECRET: config.MEDIA_URL_SECRET ?? embeddedMediaUrlSecret(config.SVC_DATA_DIR),
        MEDIA_DIR: path.join(config.SVC_DATA_DIR, 'media'),
        // Signed media links point at this process's one port (relative when the port is picked at random).
        MEDIA_PUBLIC_URL: this.publicUrlKnownBeforeListening,
      }),
      {
        ...deps,
        logger: createLogger('inbox', config.LOG_LEVEL),
        identityAddress: address(this.identity),
        // Read at first use: the copy of contacts' display fields is refreshed from contacts, started below.
        contactsAddress: () => `127.0.0.1:${this.contacts.grpcPort}`,
      },
    );
    this.contacts = new ContactsApp(
      contactsConfigSchema.parse({ ...base, ...signingKey('contacts'), DB_URL: dbUrl('contacts') }),
      {
        ...deps,
        logger: createLogger('contacts', config.LOG_LEVEL),
        inboxAddress: address(this.inbox),
        // Read at first use: a Channel user ID identity's channel is checked with channels, started below.
        channelsAddress: () => `127.0.0.1:${this.channels.grpcPort}`,
        // Read at first use (previewErase asks every erasure participant; those below start after contacts).
        erasureParticipants: {
          flows: () => `127.0.0.1:${this.flows.grpcPort}`,
          'webhook-ingress': () => `127.0.0.1:${this.ingress.grpcPort}`,
          'widget-api': () => `127.0.0.1:${this.widget.grpcPort}`,
          partner: () => `127.0.0.1:${this.partner.grpcPort}`,
        },
      },
    );
    this.flows = new FlowsApp(flowsConfigSchema.parse({ ...base, ...signingKey('flows'), DB_URL: dbUrl('flows') }), {
      ...deps,
      logger: createLogger('flows', config.LOG_LEVEL),
      identityAddress: address(this.identity),
      inboxAddress: address(this.inbox),
      contactsAddress: address(this.contacts),
      // Read at first use: flow authoring checks a trigger's connection with webhook-ingress, started below.
      webhooksAddress: () => `127.0.0.1:${this.ingress.grpcPort}`,
    });
    this.ingress = new WebhookIngressApp(
      ingressConfigSchema.parse({
        ...base,
        ...signingKey('webhook-ingress'),
        DB_URL: dbUrl('webhook-ingress'),
        // The key that seals provider signing secrets (docs/decisions/0014): generated once into the data dir.
        WEBHOOK_SECRETS_KEYS: config.WEBHOOK_SECRETS_KEYS,
        WEBHOOK_SECRETS_KEY_FILE: path.join(config.SVC_DATA_DIR, 'webhook-secrets.key'),
      }),
      {
        ...deps,
        logger: createLogger('webhook-ingress', config.LOG_LEVEL),
        contactsAddress: address(this.contacts),
        flowsAddress: address(this.flows),
        // Read at first use: a connection's channel is checked with channels, started below.
        channelsAddress: () => `127.0.0.1:${this.channels.grpcPort}`,
      },
    );
    this.channels = new ChannelsApp(
      channelsConfigSchema.parse({
        ...base,
        ...signingKey('channels'),
        DB_URL: dbUrl('channels'),
        // The key that seals identity secrets (docs/decisions/0075): generated once into the data dir.
        CHANNELS_SECRETS_KEYS: config.CHANNELS_SECRETS_KEYS,
        CHANNELS_SECRETS_KEY_FILE: path.join(config.SVC_DATA_DIR, 'channels-secrets.key'),
        // Platforms deliver webhooks to this process's one port; with a port picked at random, start() fills it in.
        CHANNELS_PUBLIC_URL: serviceEnv.CHANNELS_PUBLIC_URL || this.publicUrlKnownBeforeListening,
      }),
      {
        ...deps,
        logger: createLogger('channels', config.LOG_LEVEL),
        contactsAddress: address(this.contacts),
        inboxAddress: address(this.inbox),
      },
    );
    this.widget = new WidgetApiApp(
      widgetConfigSchema.parse({ ...base, ...signingKey('widget-api'), DB_URL: dbUrl('widget-api') }),
      {
        ...deps,
        logger: createLogger('widget-api', config.LOG_LEVEL),
        channelsAddress: address(this.channels),
        contactsAddress: address(this.contacts),
        inboxAddress: address(this.inbox),
        // Read at first use: content starts after widget-api (nothing calls it while the services start).
        contentAddress: () => `127.0.0.1:${this.content.grpcPort}`,
        holdErasureRequests: options.holdWidgetErasureRequests ?? false,
      },
    );
    this.content = new ContentApp(
      contentConfigSchema.parse({
        ...base,
        ...signingKey('content'),
        DB_URL: dbUrl('content'),
        // The help pages' absolute links (hreflang, sitemap): the stack's public URL when set, else each request's.
        CONTENT_PUBLIC_URL: serviceEnv.CONTENT_PUBLIC_URL || (config.SVC_PUBLIC_URL ?? ''),
      }),
      { ...deps, logger: createLogger('content', config.LOG_LEVEL), identityAddress: address(this.identity) },
    );
    this.partner = new PartnerApp(
      partnerConfigSchema.parse({
        ...base,
        ...signingKey('partner'),
        DB_URL: dbUrl('partner'),
        // The key that seals partner webhook secrets (PARTNER_SECRETS_KEYS when set): generated once into the data dir.
        PARTNER_SECRETS_KEY_FILE: path.join(config.SVC_DATA_DIR, 'partner-secrets.key'),
      }),
      {
        ...deps,
        logger: createLogger('partner', config.LOG_LEVEL),
        identityAddress: address(this.identity),
        channelsAddress: address(this.channels),
      },
    );
    // Dependency order: each service calls only services before it, except the reference checks of writes (decision
    // 0042): flow authoring asks webhook-ingress whether a trigger's connection is the org's, and contacts and
    // webhook-ingress ask channels whether a channel id is; and widget-api reads content's published help and news
    // for visitors; none runs while the services start.
    this.apps = [
      this.identity,
      this.inbox,
      this.contacts,
      this.flows,
      this.ingress,
      this.channels,
      this.widget,
      this.content,
      this.partner,
    ];
  }

  /** The demo org's public help pages, once the seed wrote its slug. */
  private demoHelpCenterPath(): string | undefined {
    if (!this.config.SVC_SEED_DEMO) return undefined;
    const slug = readDemoEnv(demoEnvPath(this.config.SVC_DATA_DIR))?.SVC_DEMO_ORG_SLUG;
    return slug ? `/help/${encodeURIComponent(slug)}` : undefined;
  }

  /** SVC_PUBLIC_URL, else `http://localhost:<PORT>`; empty when the port is picked at random (PORT=0). */
  private get publicUrlKnownBeforeListening(): string {
    return this.config.SVC_PUBLIC_URL ?? (this.config.PORT ? `http://localhost:${this.config.PORT}` : '');
  }

  private signerOf(issuer: string): PrincipalSigner {
    return new PrincipalSigner(issuer, importSigningKey(issuer, JSON.stringify(this.trustKeys.signing[issuer])));
  }

  get port(): number {
    const address = this.server?.address();
    return typeof address === 'object' && address ? address.port : this.config.PORT;
  }

  get url(): string {
    return this.config.SVC_PUBLIC_URL ?? `http://localhost:${this.port}`;
  }

  async start(): Promise<void> {
    await this.bus.start();
    // One after another, in dependency order: a service's runner and consumers start with it and may call the
    // services before it at once (flows resumes the runs a killed process left), and a peer's address read before
    // that peer listens names port 0 for good.
    for (const app of this.apps) await app.start();
    this.gateway = await createGateway({
      services: Object.fromEntries(this.apps.map((app) => [app.spec.name, `127.0.0.1:${app.grpcPort}`])),
      signer: this.gatewaySigner,
      bus: this.bus,
      topicPrefix: this.config.KAFKA_TOPIC_PREFIX,
      logger: createLogger('gateway', this.config.LOG_LEVEL),
      explorer: this.config.GATEWAY_EXPLORER,
      // The services' GRPC_* settings: every co-located service reads the same ones.
      callPolicy: callPolicyOf(this.identity.config),
      costBudget: {
        capacity: this.gatewayTuning.GATEWAY_COST_BUDGET,
        refillPerSecond: this.gatewayTuning.GATEWAY_COST_REFILL_PER_SECOND,
      },
    });
    const app = new Koa();
    const router = opsRouter(
      Object.assign({}, ...this.apps.map((app) => app.readinessChecks()), this.gateway.readinessChecks()),
      metricsRegistry,
    );
    const gatewayRoutes = new Router();
    // Rendered per request: demo.env appears after start.
    gatewayRoutes.get('/', (ctx) => {
      ctx.type = 'html';
      ctx.body = landingPage({
        services: this.apps.map((app) => app.spec.name),
        demoEnvFile: this.config.SVC_SEED_DEMO ? demoEnvPath(this.config.SVC_DATA_DIR) : undefined,
        explorer: this.config.GATEWAY_EXPLORER,
        helpCenterPath: this.demoHelpCenterPath(),
      });
    });
    // The widget demo: the demo org's web integration embedded by loader.js, as a customer's site embeds it.
    gatewayRoutes.get('/demo', (ctx) => {
      const demoEnvFile = demoEnvPath(this.config.SVC_DATA_DIR);
      ctx.type = 'html';
      ctx.set('cache-control', 'no-store');
      ctx.body = demoPage({
        publicKey: this.config.SVC_SEED_DEMO ? readDemoEnv(demoEnvFile)?.SVC_DEMO_WEB_PUBLIC_KEY : undefined,
        demoEnvFile,
      });
    });
    // The public inbound webhook endpoint and the signed media links, at the paths an ingress routes to
    // webhook-ingress and inbox in Kubernetes.
    app.use(router.routes()).use(gatewayRoutes.routes());
    // The widget's CDN directory at /widget/, as the chart's ingress routes it to the widget image.
    app.use(widgetAssetRoutes(this.config.SVC_WIDGET_DIR).routes());
    if (this.inbox.router) app.use(this.inbox.router.routes());
    // The widget backend under /api/web, as the chart's ingress routes it to widget-api.
    if (this.widget.router) app.use(this.widget.router.routes()).use(this.widget.router.allowedMethods());
    // The public help-center pages under /help, as the chart's ingress routes them to content.
    if (this.content.router) app.use(this.content.router.routes()).use(this.content.router.allowedMethods());
    const rawRoutes = [this.gateway.route(), ...this.apps.flatMap((service) => service.publicRawRoutes)];
    this.server = keepConnectionsAlive(
      createServer(withRawRoutes(rawRoutes, app.callback(), this.logger)),
      this.config.HTTP_KEEP_ALIVE_MS,
    ).listen(this.config.PORT, this.config.HOST);
    await new Promise<void>((resolve, reject) => {
      this.server?.once('listening', () => resolve());
      this.server?.once('error', reject);
    });
    // The channels' platform webhooks and hosted-connect callback come back to this port (read at each connect).
    if (!this.channels.config.CHANNELS_PUBLIC_URL) this.channels.config.CHANNELS_PUBLIC_URL = this.url;
    fs.mkdirSync(this.config.SVC_DATA_DIR, { recursive: true });
    // Whole or not at all (a rename): a tool polling for it read it empty between its creation and the write.
    const written = `${this.runtimeFile}.${process.pid}.tmp`;
    fs.writeFileSync(written, JSON.stringify(this.runtime(), null, 2));
    fs.renameSync(written, this.runtimeFile);
  }

  /** Where each co-located service listens (its gRPC port is ephemeral): for tools and benchmarks. */
  runtime(): { pid: number; url: string; grpc: Record<string, number> } {
    return {
      pid: process.pid,
      url: this.url,
      grpc: Object.fromEntries(this.apps.map((app) => [app.spec.name, app.grpcPort])),
    };
  }

  private get runtimeFile(): string {
    return path.join(this.config.SVC_DATA_DIR, 'stack.json');
  }

  /** Stops taking requests, drains, then stops the gateway and the services (each relays what it committed). */
  async stop(): Promise<void> {
    // Open SSE streams hold their connections: end them so the port closes (clients reconnect with Last-Event-ID).
    this.widget.endStreams();
    if (this.server) {
      const server = this.server;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
    }
    await this.gateway?.stop();
    // Callers before the services they call (the list is in dependency order): a flow run finishing its step, or a
    // request the ingress is completing, still reaches the inbox and contacts it needs.
    for (const app of [...this.apps].reverse()) await app.stop();
    fs.rmSync(this.runtimeFile, { force: true });
    await this.bus.stop();
  }
}
