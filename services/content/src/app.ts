import type Router from '@koa/router';
import { callPolicyOf, Peer, ServiceApp, type ServiceAppDeps } from '@svc/kit';
import { HelpArticleServiceService } from '@svc/proto/content/v1/help_articles';
import { ContentPublicServiceService } from '@svc/proto/content/v1/public';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import type { ContentConfig } from './config';
import { contentData } from './data';
import { CONTENT_TOPICS } from './domain/events';
import { HelpArticleReads } from './domain/help-articles/read';
import { HelpArticleWrites } from './domain/help-articles/write';
import { CONTENT_PUBLIC_GRPC_SERVICE, contentPublicService } from './domain/public/grpc';
import { HelpOrgs } from './domain/public/help-orgs';
import { PublicReads } from './domain/public/public-reads';
import { helpArticleService } from './grpc/help-articles-handlers';
import { helpPagesRouter } from './http/help-pages';

export interface ContentDeps extends ServiceAppDeps {
  /** Where identity listens, read at first use (the embedded stack knows it after start). */
  identityAddress?: () => string;
}

/**
 * The help center and news: articles, folders and tags; news posts, categories and tags; the scheduler that publishes
 * scheduled posts; the reads the widget shows visitors and the public help pages (services/content/README.md).
 */
export class ContentApp extends ServiceApp<ContentConfig> {
  protected readonly identity: Peer<IdentityServiceClient>;
  /** The public help-center pages (`/help/:orgSlug/...`), served on HTTP_PORT and by the embedded stack. */
  router: Router | undefined;

  constructor(config: ContentConfig, deps: ContentDeps = {}) {
    super(
      {
        name: 'content',
        grpcServices: ['svc.content.v1.HelpArticleService', CONTENT_PUBLIC_GRPC_SERVICE],
        data: contentData,
        publishes: [...CONTENT_TOPICS],
      },
      config,
      deps,
    );
    this.identity = new Peer(
      IdentityServiceClient,
      deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL),
      callPolicyOf(config),
    );
  }

  protected register(): void {
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
      'svc.content.v1.HelpArticleService',
    );
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

  protected override httpRouters(): Router[] {
    return this.router ? [this.router] : [];
  }

  protected override async stopWorkers(): Promise<void> {
    this.identity.close();
  }
}
