import type Router from '@koa/router';
import { callPolicyOf, Peer, ServiceApp, type ServiceAppDeps } from '@svc/kit';
import { HelpFolderServiceService } from '@svc/proto/content/v1/help_folders';
import { HelpArticleServiceService } from '@svc/proto/content/v1/help_articles';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import type { ContentConfig } from './config';
import { contentData } from './data';
import { CONTENT_TOPICS } from './domain/events';
import { HelpFolderReads, HelpFolderWrites } from './domain/help-folders';
import { HELP_FOLDER_GRPC_SERVICE, helpFolderService } from './grpc/help-folders-handlers';
import { HelpArticleReads } from './domain/help-articles/read';
import { HelpArticleWrites } from './domain/help-articles/write';
import { helpArticleService } from './grpc/help-articles-handlers';

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
        grpcServices: ['svc.content.v1.HelpArticleService', HELP_FOLDER_GRPC_SERVICE],
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
  }

  protected override httpRouters(): Router[] {
    return this.router ? [this.router] : [];
  }

  protected override async stopWorkers(): Promise<void> {
    this.identity.close();
  }
}
