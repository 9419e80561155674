import { ServiceApp, type ServiceAppDeps } from '@svc/kit';
import { InboxServiceService } from '@svc/proto/inbox/v1';
import { CollectionServiceService } from '@svc/proto/inbox/v1/collections';
import { LabelServiceService } from '@svc/proto/inbox/v1/labels';
import { SearchServiceService } from '@svc/proto/inbox/v1/search';
import type { InboxConfig } from './config';
import { inboxData } from './data';
import { inboxDomain } from './domain';
import { CHATS_TOPIC, MESSAGES_TOPIC } from './domain/events';
import { collectionService } from './grpc/collection-handlers';
import { inboxService } from './grpc/inbox-handlers';
import { labelService } from './grpc/label-handlers';
import { searchService } from './grpc/search-handlers';

/** The gRPC services this deployable serves; each is a subgraph of the gateway (mesh/src/subgraphs.ts). */
export const INBOX_GRPC_SERVICES = [
  'svc.inbox.v1.InboxService',
  'svc.inbox.v1.LabelService',
  'svc.inbox.v1.CollectionService',
  'svc.inbox.v1.SearchService',
] as const;

export class InboxApp extends ServiceApp<InboxConfig> {
  constructor(config: InboxConfig, deps: ServiceAppDeps = {}) {
    super(
      {
        name: 'inbox',
        grpcServices: [...INBOX_GRPC_SERVICES],
        data: inboxData,
        publishes: [MESSAGES_TOPIC, CHATS_TOPIC],
      },
      config,
      deps,
    );
  }

  protected register(): void {
    const domain = inboxDomain(this.dataSource, () => this.relay);
    const deps = { codec: this.codec, logger: this.logger };
    this.grpc.add(InboxServiceService, inboxService(domain, deps), 'svc.inbox.v1.InboxService');
    this.grpc.add(LabelServiceService, labelService(domain.labels, deps), 'svc.inbox.v1.LabelService');
    this.grpc.add(
      CollectionServiceService,
      collectionService(domain.collections, deps),
      'svc.inbox.v1.CollectionService',
    );
    this.grpc.add(SearchServiceService, searchService(domain.search, deps), 'svc.inbox.v1.SearchService');
  }
}
