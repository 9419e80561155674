import type { ServiceError } from '@grpc/grpc-js';
import {
  NotFound,
  Peer,
  domainErrorOf,
  systemPrincipal,
  unary,
  visitorPrincipal,
  type GrpcCallPolicy,
  type Principal,
  type PrincipalSigner,
} from '@svc/kit';
import {
  ChannelsServiceClient,
  type ResolvedWebIntegration,
  type VerifiedVisitor,
  type VerifyVisitorProofRequest,
} from '@svc/proto/channels/v1';
import {
  ContentPublicServiceClient,
  type PublicArticle,
  type PublicArticlePage,
  type PublicArticlesRequest,
  type PublicArticleRequest,
  type PublicFolderList,
  type PublicFoldersRequest,
  type PublicNewsPage,
  type PublicNewsRequest,
} from '@svc/proto/content/v1/public';
import { ContactsServiceClient, IdentifierType, type Contact, type ContactInput } from '@svc/proto/contacts/v1';
import {
  DeliveryStatus,
  InboxServiceClient,
  type Chat,
  type ChatContact,
  type Media,
  type Message,
  type PaginateMessagesInput,
} from '@svc/proto/inbox/v1';
import { MediaServiceClient, type MediaUpload } from '@svc/proto/inbox/v1/media';
import {
  VisitorServiceClient,
  type VisitorChat,
  type VisitorEventPage,
  type VisitorMessagePage,
} from '@svc/proto/inbox/v1/visitor';

/** Who a visitor session acts as: one contact of one web integration of one org. */
export interface VisitorIdentityOfSession {
  orgId: string;
  channelId: string;
  contactId: string;
}

export interface BackendAddresses {
  channels: () => string;
  contacts: () => string;
  inbox: () => string;
  content: () => string;
}

/**
 * The calls widget-api makes, each with the principal the trust policy lets it present: SYSTEM of the installation
 * to resolve a public key, SYSTEM of the org for contacts, proofs and opening chats, and the visitor's own VISITOR
 * principal for everything a visitor does in its chat. Downstream failures come back as kit domain errors.
 */
export class Backends {
  private readonly channels: Peer<ChannelsServiceClient>;
  private readonly contacts: Peer<ContactsServiceClient>;
  private readonly inbox: Peer<InboxServiceClient>;
  private readonly visitorService: Peer<VisitorServiceClient>;
  private readonly media: Peer<MediaServiceClient>;
  private readonly content: Peer<ContentPublicServiceClient>;

  constructor(
    /** Read at each call: a service's signer exists only once its key is configured (kit ServiceApp). */
    private readonly signer: () => PrincipalSigner,
    addresses: BackendAddresses,
    policy: GrpcCallPolicy,
  ) {
    this.channels = new Peer(ChannelsServiceClient, addresses.channels, policy);
    this.contacts = new Peer(ContactsServiceClient, addresses.contacts, policy);
    this.inbox = new Peer(InboxServiceClient, addresses.inbox, policy);
    this.visitorService = new Peer(VisitorServiceClient, addresses.inbox, policy);
    this.media = new Peer(MediaServiceClient, addresses.inbox, policy);
    this.content = new Peer(ContentPublicServiceClient, addresses.content, policy);
  }

  close(): void {
    for (const peer of [this.channels, this.contacts, this.inbox, this.visitorService, this.media, this.content])
      peer.close();
  }

  resolvePublicKey(publicKey: string): Promise<ResolvedWebIntegration> {
    const client = this.channels.get();
    return call(client.resolvePublicKey.bind(client), { publicKey }, this.as(systemPrincipal(), 'channels'));
  }

  verifyVisitorProof(orgId: string, request: VerifyVisitorProofRequest): Promise<VerifiedVisitor> {
    const client = this.channels.get();
    return call(client.verifyVisitorProof.bind(client), request, this.as(systemPrincipal(orgId), 'channels'));
  }

  /** The contact holding this channel user id on this integration, if any. */
  async contactOfUser(orgId: string, channelId: string, userId: string): Promise<string | undefined> {
    const client = this.contacts.get();
    const found = await call(
      client.lookupContact.bind(client),
      { identifierType: IdentifierType.CHANNEL_USER_ID, value: userId, channelIntegrationId: channelId },
      this.as(systemPrincipal(orgId), 'contacts'),
    );
    return found.found ? found.contactId : undefined;
  }

  createContact(orgId: string, input: ContactInput): Promise<Contact> {
    const client = this.contacts.get();
    return call(client.createContact.bind(client), { input }, this.as(systemPrincipal(orgId), 'contacts'));
  }

  updateContact(orgId: string, id: string, input: ContactInput): Promise<Contact> {
    const client = this.contacts.get();
    return call(client.updateContact.bind(client), { id, input }, this.as(systemPrincipal(orgId), 'contacts'));
  }

  openChat(orgId: string, channelId: string, contact: ChatContact): Promise<Chat> {
    const client = this.inbox.get();
    return call(client.openChat.bind(client), { channelId, contact }, this.as(systemPrincipal(orgId), 'inbox'));
  }

  moveChatsToContact(orgId: string, channelId: string, fromContactId: string, toContact: ChatContact) {
    const client = this.inbox.get();
    return call(
      client.moveChatsToContact.bind(client),
      { channelId, fromContactId, toContact },
      this.as(systemPrincipal(orgId), 'inbox'),
    );
  }

  getVisitorChat(visitor: VisitorIdentityOfSession, chatId: string): Promise<VisitorChat> {
    const client = this.visitorService.get();
    return call(client.getVisitorChat.bind(client), { chatId }, this.asVisitor(visitor));
  }

  listVisitorMessages(
    visitor: VisitorIdentityOfSession,
    chatId: string,
    pagination: PaginateMessagesInput,
  ): Promise<VisitorMessagePage> {
    const client = this.visitorService.get();
    return call(client.listVisitorMessages.bind(client), { chatId, pagination }, this.asVisitor(visitor));
  }

  listVisitorEvents(visitor: VisitorIdentityOfSession, chatId: string, afterSeq: number): Promise<VisitorEventPage> {
    const client = this.visitorService.get();
    return call(client.listVisitorEvents.bind(client), { chatId, afterSeq }, this.asVisitor(visitor));
  }

  markVisitorRead(visitor: VisitorIdentityOfSession, chatId: string, messageId: string): Promise<VisitorChat> {
    const client = this.visitorService.get();
    return call(client.markVisitorRead.bind(client), { chatId, messageId }, this.asVisitor(visitor));
  }

  setVisitorTyping(visitor: VisitorIdentityOfSession, chatId: string, typing: boolean): Promise<VisitorChat> {
    const client = this.visitorService.get();
    return call(client.setVisitorTyping.bind(client), { chatId, typing }, this.asVisitor(visitor));
  }

  receiveMessage(
    visitor: VisitorIdentityOfSession,
    request: { chatId: string; text: string; mediaIds: string[]; externalId: string },
  ): Promise<Message> {
    const client = this.inbox.get();
    return call(client.receiveMessage.bind(client), request, this.asVisitor(visitor));
  }

  /**
   * DELIVERED and READ are the visitor's acknowledgements (its own principal); SENT is widget-api's own report that it
   * wrote the message to a stream (SYSTEM of the org, as every channel reports delivery; decision 0082).
   */
  updateDeliveryStatus(
    visitor: VisitorIdentityOfSession,
    chatId: string,
    messageIds: string[],
    status: DeliveryStatus,
  ): Promise<string[]> {
    const client = this.inbox.get();
    const metadata =
      status === DeliveryStatus.SENT ? this.as(systemPrincipal(visitor.orgId), 'inbox') : this.asVisitor(visitor);
    return call(client.updateDeliveryStatus.bind(client), { chatId, messageIds, status }, metadata).then(
      (result) => result.changedMessageIds,
    );
  }

  createMedia(visitor: VisitorIdentityOfSession, file: MediaUpload): Promise<Media> {
    const client = this.media.get();
    return call(client.createMedia.bind(client), { file }, this.asVisitor(visitor));
  }

  /** The org's published help articles and news, as SYSTEM of the org (content's public reads). */
  publicArticles(orgId: string, request: PublicArticlesRequest): Promise<PublicArticlePage> {
    const client = this.content.get();
    return call(client.listPublicArticles.bind(client), request, this.as(systemPrincipal(orgId), 'content'));
  }

  publicArticle(orgId: string, request: PublicArticleRequest): Promise<PublicArticle> {
    const client = this.content.get();
    return call(client.getPublicArticle.bind(client), request, this.as(systemPrincipal(orgId), 'content'));
  }

  publicFolders(orgId: string, request: PublicFoldersRequest): Promise<PublicFolderList> {
    const client = this.content.get();
    return call(client.listPublicFolders.bind(client), request, this.as(systemPrincipal(orgId), 'content'));
  }

  publicNews(orgId: string, request: PublicNewsRequest): Promise<PublicNewsPage> {
    const client = this.content.get();
    return call(client.listPublicNews.bind(client), request, this.as(systemPrincipal(orgId), 'content'));
  }

  private as(principal: Principal, audience: string) {
    return this.signer().metadata(principal, audience);
  }

  private asVisitor(visitor: VisitorIdentityOfSession) {
    return this.as(visitorPrincipal(visitor.orgId, visitor.contactId, visitor.channelId), 'inbox');
  }
}

/**
 * Whether the inbox refused a call because it does not know the contact the call was for: an erased contact (its
 * tombstone, decision 0169) is answered as an unknown one, NOT_FOUND naming the contact (`contact._id` on OpenChat,
 * `contactId` on the visitor's calls), never a chat.
 */
export function contactUnknownToInbox(error: unknown): boolean {
  return error instanceof NotFound && ['contact._id', 'contactId'].includes(error.details.field ?? '');
}

type Unary<Req, Res> = Parameters<typeof unary<Req, Res>>[0];

/** A unary call whose gRPC failure is rethrown as the kit domain error it was (NOT_FOUND stays NotFound, …). */
async function call<Req, Res>(
  method: Unary<Req, Res>,
  request: Req,
  metadata: ReturnType<PrincipalSigner['metadata']>,
): Promise<Res> {
  try {
    return await unary(method, request, metadata);
  } catch (error) {
    throw domainErrorOf(error as ServiceError);
  }
}
