import type { Metadata } from '@grpc/grpc-js';
import { callerMetadata, dropTestDatabase, grpcClient, testEnv, type Principal } from '@svc/kit';
import { IdentityForTests } from '@svc/identity';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { SearchServiceClient } from '@svc/proto/inbox/v1/search';
import { InboxApp, inboxConfig } from '../src';

/** The search tests' inbox (SQLite, or MariaDB under `npm run test:infra`), its identity and its two gRPC clients. */
export class SearchStack {
  app!: InboxApp;
  inbox!: InboxServiceClient;
  search!: SearchServiceClient;
  private identity!: IdentityForTests;

  async start(): Promise<void> {
    const config = inboxConfig(testEnv('inbox'));
    this.identity = new IdentityForTests();
    await this.identity.start();
    this.app = new InboxApp(config, { identityAddress: () => this.identity.address });
    await this.app.start();
    this.inbox = grpcClient(InboxServiceClient, `127.0.0.1:${this.app.grpcPort}`);
    this.search = grpcClient(SearchServiceClient, `127.0.0.1:${this.app.grpcPort}`);
  }

  async stop(): Promise<void> {
    this.inbox.close();
    this.search.close();
    await this.app.stop();
    await this.identity.dispose();
    await dropTestDatabase(this.app.config.DB_URL);
  }

  as(principal: Principal): Promise<Metadata> {
    return callerMetadata(principal, 'inbox');
  }
}
