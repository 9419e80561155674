import type { ServiceError } from '@grpc/grpc-js';
import { Peer, domainErrorOf, systemPrincipal, unary, type GrpcCallPolicy, type PrincipalSigner } from '@svc/kit';
import { InboxServiceClient, type Chat, type Message, type SendMessageRequest } from '@svc/proto/inbox/v1';

/** The inbox calls a template send makes. */
export interface TemplateInbox {
  getChat(orgId: string, chatId: string): Promise<Chat>;
  sendMessage(orgId: string, request: SendMessageRequest): Promise<Message>;
}

/** The inbox over gRPC as SYSTEM of the org (kit trust policy: channels → inbox); failures as kit domain errors. */
export class GrpcTemplateInbox implements TemplateInbox {
  private readonly inbox: Peer<InboxServiceClient>;

  constructor(
    private readonly signer: () => PrincipalSigner,
    address: () => string,
    policy: GrpcCallPolicy,
  ) {
    this.inbox = new Peer(InboxServiceClient, address, policy);
  }

  close(): void {
    this.inbox.close();
  }

  async getChat(orgId: string, chatId: string): Promise<Chat> {
    const client = this.inbox.get();
    return this.call(() => unary(client.getChat.bind(client), { chatId }, this.metadata(orgId)));
  }

  async sendMessage(orgId: string, request: SendMessageRequest): Promise<Message> {
    const client = this.inbox.get();
    return this.call(() => unary(client.sendMessage.bind(client), request, this.metadata(orgId)));
  }

  private metadata(orgId: string) {
    return this.signer().metadata(systemPrincipal(orgId), 'inbox');
  }

  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw domainErrorOf(error as ServiceError);
    }
  }
}
