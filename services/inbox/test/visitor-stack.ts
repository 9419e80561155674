import { makeGenericClientConstructor, type Client, type Metadata } from '@grpc/grpc-js';
import {
  ApiScope,
  apiKeyPrincipal,
  callerMetadata,
  dropTestDatabase,
  grpcClient,
  newId,
  systemPrincipal,
  testEnv,
  unary,
  visitorPrincipal,
  type Principal,
  type Subscription,
} from '@svc/kit';
import { IdentityForTests } from '@svc/identity';
import { Envelope } from '@svc/proto/events/v1';
import { InboxServiceClient, type Chat } from '@svc/proto/inbox/v1';
import { MediaServiceClient } from '@svc/proto/inbox/v1/media';
import { VisitorServiceClient } from '@svc/proto/inbox/v1/visitor';
import { CHATS_TOPIC, InboxApp, MESSAGES_TOPIC, inboxConfig } from '../src';

/** The smallest PNG the content sniffing accepts: an upload of a contact or an agent in the tests. */
export const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.alloc(17, 1),
]);

export const AGENT_SCOPES = [
  ApiScope.MESSAGES_READ,
  ApiScope.MESSAGES_SEND,
  ApiScope.CONVERSATIONS_MANAGE,
  ApiScope.NOTES_WRITE,
  ApiScope.PII_READ,
];

/** A visitor's chat: its org, the chat, the visitor principal and an agent key of the org. */
export interface VisitorChatFixture {
  orgId: string;
  chat: Chat;
  visitor: Principal;
  agent: Principal;
}

/** The inbox (SQLite, or MariaDB + Kafka under `npm run test:infra`) with the clients the visitor tests use. */
export class VisitorStack {
  app!: InboxApp;
  inbox!: InboxServiceClient;
  visitorService!: VisitorServiceClient;
  media!: MediaServiceClient;
  identity!: IdentityForTests;
  /** Every event of the inbox's two topics, decoded, in the order of each partition. */
  readonly events: Envelope[] = [];
  private watcher: Subscription | undefined;

  async start(): Promise<void> {
    this.identity = new IdentityForTests();
    await this.identity.start();
    this.app = new InboxApp(inboxConfig(testEnv('inbox')), { identityAddress: () => this.identity.address });
    await this.app.start();
    const address = `127.0.0.1:${this.app.grpcPort}`;
    this.inbox = grpcClient(InboxServiceClient, address);
    this.visitorService = grpcClient(VisitorServiceClient, address);
    this.media = grpcClient(MediaServiceClient, address);
    const prefix = this.app.config.KAFKA_TOPIC_PREFIX;
    this.watcher = await this.app.bus.subscribe({
      groupId: `${prefix}test.visitor.${newId()}`,
      topics: [prefix + MESSAGES_TOPIC, prefix + CHATS_TOPIC],
      fromBeginning: true,
      handle: async (record) => {
        this.events.push(Envelope.decode(record.value));
      },
    });
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
    this.inbox.close();
    this.visitorService.close();
    this.media.close();
    await this.app.stop();
    await this.identity.dispose();
    await dropTestDatabase(this.app.config.DB_URL);
  }

  as(principal: Principal): Promise<Metadata> {
    return callerMetadata(principal, 'inbox');
  }

  /** A generic client of any inbox gRPC service (the RPC walk). */
  clientOf(definition: Parameters<typeof makeGenericClientConstructor>[0]): Client {
    const Generic = makeGenericClientConstructor(definition, 'walk');
    return grpcClient(
      Generic as unknown as new (...args: ConstructorParameters<typeof Generic>) => Client,
      `127.0.0.1:${this.app.grpcPort}`,
    );
  }

  /** Opens a chat for a new contact on a new channel (or the given ones) in `orgId`. */
  async visitorChat(orgId = newId(), channelId = newId(), contactId = newId()): Promise<VisitorChatFixture> {
    const chat = await unary(
      this.inbox.openChat.bind(this.inbox),
      { channelId, contact: { _id: contactId, name: 'Visitor' } },
      this.as(systemPrincipal(orgId)),
    );
    return {
      orgId,
      chat,
      visitor: visitorPrincipal(orgId, contactId, channelId),
      agent: apiKeyPrincipal(orgId, AGENT_SCOPES),
    };
  }

  receive(
    principal: Principal,
    chatId: string,
    text: string,
    extra: { externalId?: string; mediaIds?: string[] } = {},
  ) {
    return unary(
      this.inbox.receiveMessage.bind(this.inbox),
      { chatId, text, mediaIds: extra.mediaIds ?? [], externalId: extra.externalId },
      this.as(principal),
    );
  }

  send(principal: Principal, chatId: string, text: string, internal = false) {
    return unary(this.inbox.sendMessage.bind(this.inbox), { chatId, input: { text, internal } }, this.as(principal));
  }

  visitorEvents(principal: Principal, chatId: string, afterSeq = 0, limit?: number) {
    return unary(
      this.visitorService.listVisitorEvents.bind(this.visitorService),
      { chatId, afterSeq, limit },
      this.as(principal),
    );
  }

  visitorMessages(
    principal: Principal,
    chatId: string,
    pagination?: { cursor?: string; isBefore?: boolean; limit: number },
  ) {
    return unary(
      this.visitorService.listVisitorMessages.bind(this.visitorService),
      { chatId, pagination },
      this.as(principal),
    );
  }

  visitorChatOf(principal: Principal, chatId: string) {
    return unary(this.visitorService.getVisitorChat.bind(this.visitorService), { chatId }, this.as(principal));
  }

  /** The events seen so far about one chat. */
  eventsOf(chatId: string): Envelope[] {
    return this.events.filter(
      (e) => e.message?.chatId === chatId || e.chat?.chatId === chatId || e.typing?.chatId === chatId,
    );
  }
}
