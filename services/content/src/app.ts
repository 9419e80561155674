import type Router from '@koa/router';
import {
  callPolicyOf,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  Peer,
  ServiceApp,
  type ServiceAppDeps,
  stopTogether,
} from '@svc/kit';
import { HelpArticleServiceService } from '@svc/proto/content/v1/help_articles';
import { HelpFolderServiceService } from '@svc/proto/content/v1/help_folders';
import { TaxonomyServiceService } from '@svc/proto/content/v1/taxonomy';
import { NewsPostServiceService } from '@svc/proto/content/v1/news_posts';
import { ContentPublicServiceService } from '@svc/proto/content/v1/public';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import type { ContentConfig } from './config';
import { contentData } from './data';
import { CONTENT_TOPICS } from './domain/events';
import { contentOrgPart } from './domain/org-erasure';
import { HelpArticleReads } from './domain/help-articles/read';
import { HelpArticleWrites } from './domain/help-articles/write';
import { CONTENT_PUBLIC_GRPC_SERVICE, contentPublicService } from './domain/public/grpc';
import { HelpOrgs } from './domain/public/help-orgs';
import { PublicReads } from './domain/public/public-reads';
import { HELP_ARTICLE_GRPC_SERVICE, helpArticleService } from './grpc/help-articles-handlers';
import { HelpFolderReads, HelpFolderWrites } from './domain/help-folders';
import { HELP_FOLDER_GRPC_SERVICE, helpFolderService } from './grpc/help-folders-handlers';
import { TAXONOMY_GRPC_SERVICE, taxonomyService } from './grpc/taxonomy-handlers';
import { NewsPosts } from './domain/news/posts';
import { NewsScheduler } from './domain/news/scheduler';
import { NEWS_POST_GRPC_SERVICE, newsPostsService } from './grpc/news-posts-handlers';
import { helpPagesRouter } from './http/help-pages';

export interface ContentDeps extends ServiceAppDeps {
  /** Where identity listens, read at first use (the embedded stack knows it after start). */
  identityAddress?: () => string;
  /** The time the news posts and their scheduler read as now (tests move it); the system clock otherwise. */
  newsClock?: () => Date;
}

/**
 * The help center and news: articles, folders and tags; news posts, categories and tags; the scheduler that publishes
 * scheduled posts; the reads the widget shows visitors and the public help pages (services/content/README.md).
 */
export class ContentApp extends ServiceApp<ContentConfig> {
  protected readonly identity: Peer<IdentityServiceClient>;
  /** The public help-center pages (`/help/:orgSlug/...`), served on HTTP_PORT and by the embedded stack. */
  router: Router | undefined;
  private newsScheduler: NewsScheduler | undefined;
  private orgErasure: OrgErasureParticipant | undefined;
  private readonly newsClock: (() => Date) | undefined;

  constructor(config: ContentConfig, deps: ContentDeps = {}) {
    super(
      {
        name: 'content',
        grpcServices: [
          HELP_ARTICLE_GRPC_SERVICE,
          HELP_FOLDER_GRPC_SERVICE,
          TAXONOMY_GRPC_SERVICE,
          NEWS_POST_GRPC_SERVICE,
          CONTENT_PUBLIC_GRPC_SERVICE,
        ],
        data: contentData,
        publishes: [...CONTENT_TOPICS, ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    this.identity = new Peer(
      IdentityServiceClient,
      deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL),
      callPolicyOf(config),
    );
    this.newsClock = deps.newsClock;
  }

  protected register(): void {
    this.orgErasure = new OrgErasureParticipant(this, contentOrgPart());
    // Each area adds its gRPC service here (help articles, folders, tags, news posts, news taxonomy, public reads).
    const deps = { verifier: this.verifier, logger: this.logger };
    this.grpc.add(
      HelpArticleServiceService,
      helpArticleService(
        {
          reads: new HelpArticleReads(this.dataSource),
          writes: new HelpArticleWrites(this.dataSource, () => this.relay),
        },
        deps,
      ),
      HELP_ARTICLE_GRPC_SERVICE,
    );
    this.grpc.add(
      HelpFolderServiceService,
      helpFolderService(
        {
          reads: new HelpFolderReads(this.dataSource),
          writes: new HelpFolderWrites(this.dataSource, () => this.relay),
        },
        deps,
      ),
      HELP_FOLDER_GRPC_SERVICE,
    );
    this.grpc.add(
      TaxonomyServiceService,
      taxonomyService(this.dataSource, () => this.relay, deps),
      TAXONOMY_GRPC_SERVICE,
    );
    const relay = () => this.relay;
    const scheduler = new NewsScheduler(this.dataSource, relay, this.logger, {
      intervalMs: this.config.CONTENT_SCHEDULER_INTERVAL_MS,
      leaseMs: this.config.CONTENT_SCHEDULER_LEASE_MS,
      clock: this.newsClock,
    });
    this.newsScheduler = scheduler;
    const news = new NewsPosts(this.dataSource, relay, (at) => scheduler.wakeAt(at), this.newsClock);
    this.grpc.add(NewsPostServiceService, newsPostsService(news, deps), NEWS_POST_GRPC_SERVICE);
    this.grpc.add(
      ContentPublicServiceService,
      contentPublicService(new PublicReads(this.dataSource), deps),
      CONTENT_PUBLIC_GRPC_SERVICE,
    );
    this.router = helpPagesRouter({
      dataSource: this.dataSource,
      orgs: new HelpOrgs(this.identity, () => this.signer, this.config.CONTENT_ORG_SLUG_CACHE_MS),
      publicUrl: this.config.CONTENT_PUBLIC_URL,
      logger: this.logger,
    });
  }

  protected override async startWorkers(): Promise<void> {
    this.newsScheduler?.start();
    await this.orgErasure?.start();
  }

  protected override httpRouters(): Router[] {
    return this.router ? [this.router] : [];
  }

  protected override async stopWorkers(): Promise<void> {
    await stopTogether([this.newsScheduler, this.orgErasure]);
    this.identity.close();
  }
}
