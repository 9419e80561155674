import { ServiceApp, type ServiceAppDeps } from '@svc/kit';
import { InboxServiceService } from '@svc/proto/inbox/v1';
import type { InboxConfig } from './config';
import { inboxData } from './data';
import { Chats } from './domain/chats';
import { CHATS_TOPIC, MESSAGES_TOPIC } from './domain/events';
import { Messages } from './domain/messages';
import { inboxService } from './grpc/inbox-handlers';

export class InboxApp extends ServiceApp<InboxConfig> {
  constructor(config: InboxConfig, deps: ServiceAppDeps = {}) {
    super(
      {
        name: 'inbox',
        grpcServices: ['svc.inbox.v1.InboxService'],
        data: inboxData,
        publishes: [MESSAGES_TOPIC, CHATS_TOPIC],
      },
      config,
      deps,
    );
  }

  protected register(): void {
    const relay = () => this.relay;
    const domain = { chats: new Chats(this.dataSource, relay), messages: new Messages(this.dataSource, relay) };
    this.grpc.add(
      InboxServiceService,
      inboxService(domain, { codec: this.codec, logger: this.logger }),
      'svc.inbox.v1.InboxService',
    );
  }
}
