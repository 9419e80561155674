import type Router from '@koa/router';
import {
  ERASURE_PARTICIPANT_GRPC_SERVICE,
  ERASURE_TOPIC,
  ErasureParticipant,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  ServiceApp,
  callPolicyOf,
  contactRowsPart,
  importSigningKey,
  type RawRoute,
  type ServiceAppDeps,
  type Subscription,
  stopTogether,
} from '@svc/kit';
import type { WidgetConfig } from './config';
import { widgetData } from './data';
import { Backends, type BackendAddresses } from './domain/backends';
import { WIDGET_CONTACT_ROWS } from './domain/erasure';
import { widgetOrgPart } from './domain/org-erasure';
import { GoogleIdTokens } from './domain/google-id-token';
import { Integrations } from './domain/integrations';
import { SESSION_ISSUER, SessionTokens } from './domain/session-tokens';
import { Sessions } from './domain/sessions';
import { Visitors } from './domain/visitors';
import { widgetRouter } from './http/routes';
import { channelChangeHandler } from './realtime/channel-changes';
import { subscribeFeed } from './realtime/feed';
import { RealtimeHub } from './realtime/hub';
import { realtimeRoute } from './realtime/realtime-route';

export interface WidgetDeps extends ServiceAppDeps {
  /** Where channels, contacts, inbox and content listen, read at first use (the embedded stack knows them only after start). */
  channelsAddress?: () => string;
  contactsAddress?: () => string;
  inboxAddress?: () => string;
  contentAddress?: () => string;
  /**
   * The erasure consumer joins its group at start and then consumes nothing until `consumeErasureRequests()`:
   * widget-api lagging behind the other participants of an erasure (tests; decision 0174).
   */
  holdErasureRequests?: boolean;
}

const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * widget-api: the HTTP backend of the website widget (docs/widget-api.md). Its one gRPC service is the erasure
 * participant's `PreviewErasure` (contacts asks it); its routes are on HTTP_PORT, in the embedded stack on the shared
 * port under /api/web.
 */
export class WidgetApiApp extends ServiceApp<WidgetConfig> {
  private readonly backends: Backends;
  private readonly integrations: Integrations;
  private readonly tokens: SessionTokens;
  private hub: RealtimeHub | undefined;
  private sessions: Sessions | undefined;
  private erasure: ErasureParticipant | undefined;
  private orgErasure: OrgErasureParticipant | undefined;
  private feed: Subscription | undefined;
  private pruning: NodeJS.Timeout | undefined;
  /** The Koa routes (config, handshakes, visitor chat routes); valid once started. */
  router: Router | undefined;
  /** The SSE route, served ahead of Koa (in the embedded stack too). */
  readonly realtime: RawRoute;

  private readonly holdErasureRequests: boolean;

  constructor(config: WidgetConfig, deps: WidgetDeps = {}) {
    super(
      {
        name: 'widget-api',
        grpcServices: [ERASURE_PARTICIPANT_GRPC_SERVICE],
        data: widgetData,
        publishes: [ERASURE_TOPIC, ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    const addresses: BackendAddresses = {
      channels: deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL),
      contacts: deps.contactsAddress ?? (() => config.CONTACTS_GRPC_URL),
      inbox: deps.inboxAddress ?? (() => config.INBOX_GRPC_URL),
      content: deps.contentAddress ?? (() => config.CONTENT_GRPC_URL),
    };
    this.holdErasureRequests = deps.holdErasureRequests ?? false;
    this.backends = new Backends(() => this.signer, addresses, callPolicyOf(config));
    this.integrations = new Integrations(this.backends, config.WIDGET_CONFIG_CACHE_MS);
    const signingKey = importSigningKey(SESSION_ISSUER, config.SVC_SIGNING_KEY ?? '', config.SVC_SIGNING_KEY_ID);
    signingKey.catch(() => undefined);
    this.tokens = new SessionTokens(
      signingKey,
      config.SVC_TRUST_JWKS,
      config.WIDGET_SESSION_TTL_SECONDS,
      deps.clock,
      (sessionId) => this.sessions?.exists(sessionId) ?? Promise.resolve(false),
    );
    this.realtime = realtimeRoute({
      hub: () => {
        if (!this.hub) throw new Error('widget-api is not started');
        return this.hub;
      },
      tokens: this.tokens,
      integrations: this.integrations,
      backends: this.backends,
      widgetOrigin: config.WIDGET_ORIGIN,
    });
  }

  protected register(): void {
    const clock = this.deps.clock;
    const sessions = new Sessions(this.dataSource, this.config.WIDGET_REFRESH_TTL_SECONDS * 1000, clock);
    this.sessions = sessions;
    // This replica's streams of the contact end once its sessions are gone; every replica's do on the events (feed.ts).
    const endStreams = ({ contactId }: { contactId: string }) => Promise.resolve(this.endContactStreams(contactId));
    this.erasure = new ErasureParticipant(
      this,
      contactRowsPart('widget-api', this.dataSource, WIDGET_CONTACT_ROWS, endStreams),
    );
    this.orgErasure = new OrgErasureParticipant(
      this,
      widgetOrgPart({ afterCommit: ({ orgId }) => Promise.resolve(this.endOrgStreams(orgId)) }),
    );
    const visitors = new Visitors(
      this.backends,
      new GoogleIdTokens(this.config.WIDGET_GOOGLE_JWKS_URL, clock),
      sessions,
      this.tokens,
      { burst: this.config.WIDGET_ANONYMOUS_BURST, windowSeconds: this.config.WIDGET_ANONYMOUS_WINDOW_SECONDS },
      this.logger.child({ component: 'visitors' }),
      clock,
    );
    this.hub = new RealtimeHub(
      this.backends,
      {
        heartbeatMs: this.config.WIDGET_SSE_HEARTBEAT_MS,
        retryMs: this.config.WIDGET_SSE_RETRY_MS,
        typingTimeoutMs: this.config.WIDGET_TYPING_TIMEOUT_MS,
      },
      this.logger.child({ component: 'realtime' }),
    );
    this.router = widgetRouter({
      integrations: this.integrations,
      visitors,
      tokens: this.tokens,
      backends: this.backends,
      widgetOrigin: this.config.WIDGET_ORIGIN,
      trustedProxyHops: this.config.WIDGET_TRUSTED_PROXY_HOPS,
      mediaMaxBytes: this.config.MEDIA_MAX_BYTES,
      logger: this.logger,
    });
    this.pruning = setInterval(() => {
      sessions.prune().catch((error: unknown) => this.logger.warn({ err: error }, 'session pruning failed'));
    }, PRUNE_INTERVAL_MS);
    this.pruning.unref();
  }

  protected override httpRouters(): Router[] {
    return this.router ? [this.router] : [];
  }

  protected override rawRoutes(): RawRoute[] {
    return [this.realtime];
  }

  /** Ends every SSE stream (SIGTERM; the embedded stack before it closes its port, which open streams hold). */
  endStreams(): void {
    this.hub?.close();
  }

  /** Ends the streams of an erased contact on this replica (decision 0173). */
  private endContactStreams(contactId: string): void {
    const ended = this.hub?.endContact(contactId) ?? 0;
    if (ended) this.logger.info({ ended }, 'streams of an erased contact ended');
  }

  /** Ends the streams of a deprovisioned org on this replica and forgets its integrations (decision 0221). */
  private endOrgStreams(orgId: string): void {
    this.integrations.evictOrg(orgId);
    const ended = this.hub?.endOrg(orgId) ?? 0;
    if (ended) this.logger.info({ ended, orgId }, 'streams of a deprovisioned org ended');
  }

  /** Open SSE streams on this replica. */
  get streamCount(): number {
    return this.hub?.streamCount ?? 0;
  }

  /** Starts the erasure consumer held back by `holdErasureRequests` (once started it stays: a no-op then). */
  async consumeErasureRequests(): Promise<void> {
    await this.erasure?.start();
  }

  protected override async startWorkers(): Promise<void> {
    await this.erasure?.start();
    // Held: the consumer joins its group and leaves it, as a participant that ran before and now lags. Never joining
    // would be a group new to the topic, and the embedded bus keeps no record every group it knows has read (0060), so
    // the requests made meanwhile were gone by the time it joined.
    if (this.holdErasureRequests) await this.erasure?.stop();
    await this.orgErasure?.start();
    if (!this.hub) return;
    this.feed = await subscribeFeed(this.bus, this.config.KAFKA_TOPIC_PREFIX, {
      hub: this.hub,
      channelChanged: channelChangeHandler(
        this.integrations,
        () => this.hub,
        this.logger.child({ component: 'realtime' }),
      ),
      contactErased: (contactId) => this.endContactStreams(contactId),
      orgErased: (orgId) => this.endOrgStreams(orgId),
    });
  }

  protected override async stopWorkers(): Promise<void> {
    clearInterval(this.pruning);
    // Streams end first (clients reconnect elsewhere with their Last-Event-ID), then the feed stops, with the other
    // consumers.
    this.hub?.close();
    await stopTogether([this.erasure, this.orgErasure, this.feed]);
    this.backends.close();
  }
}
