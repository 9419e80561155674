import { Peer, type GrpcCallPolicy, type PrincipalSigner } from '@svc/kit';
import { callAsSystem, type BackendAddresses } from '../../grpc/system-call';
import { ContactsServiceClient, type IdentifierType, type Contact, type ContactInput } from '@svc/proto/contacts/v1';
import {
  InboxServiceClient,
  type Chat,
  type ChatContact,
  type Message,
  type ReceiveMessageRequest,
} from '@svc/proto/inbox/v1';
import { MediaServiceClient, type MediaUpload } from '@svc/proto/inbox/v1/media';
import type { Media } from '@svc/proto/inbox/v1';

/**
 * The calls the inbound consumer makes, each as SYSTEM of the channel's org (kit trust policy: channels → contacts,
 * inbox). Failures come back as kit domain errors: UNAVAILABLE / DEADLINE_EXCEEDED are worth retrying, the rest not.
 */
export class InboundBackends {
  private readonly contacts: Peer<ContactsServiceClient>;
  private readonly inbox: Peer<InboxServiceClient>;
  private readonly media: Peer<MediaServiceClient>;

  constructor(
    /** Read at each call: the signer exists once the service started with its key. */
    private readonly signer: () => PrincipalSigner,
    addresses: BackendAddresses,
    policy: GrpcCallPolicy,
  ) {
    this.contacts = new Peer(ContactsServiceClient, addresses.contacts, policy);
    this.inbox = new Peer(InboxServiceClient, addresses.inbox, policy);
    this.media = new Peer(MediaServiceClient, addresses.inbox, policy);
  }

  close(): void {
    for (const peer of [this.contacts, this.inbox, this.media]) peer.close();
  }

  /** The contact holding `type`/`value` (a channel user id scoped to its channel, or a phone number), if any. */
  async lookupContact(
    orgId: string,
    type: IdentifierType.CHANNEL_USER_ID | IdentifierType.PHONE_NUMBER,
    value: string,
    channelId?: string,
  ): Promise<string | undefined> {
    const client = this.contacts.get();
    const found = await this.call(
      client.lookupContact.bind(client),
      { identifierType: type, value, channelIntegrationId: channelId },
      orgId,
      'contacts',
    );
    return found.found ? found.contactId : undefined;
  }

  createContact(orgId: string, input: ContactInput): Promise<Contact> {
    const client = this.contacts.get();
    return this.call(client.createContact.bind(client), { input }, orgId, 'contacts');
  }

  updateContact(orgId: string, id: string, input: ContactInput): Promise<Contact> {
    const client = this.contacts.get();
    return this.call(client.updateContact.bind(client), { id, input }, orgId, 'contacts');
  }

  openChat(orgId: string, channelId: string, channelType: string, contact: ChatContact): Promise<Chat> {
    const client = this.inbox.get();
    return this.call(client.openChat.bind(client), { channelId, contact, channelType }, orgId, 'inbox');
  }

  /** Stores a platform attachment in the inbox's media library as uploaded by the contact. */
  createMedia(orgId: string, contactId: string, file: MediaUpload): Promise<Media> {
    const client = this.media.get();
    return this.call(client.createMedia.bind(client), { file, contactId }, orgId, 'inbox');
  }

  receiveMessage(orgId: string, request: ReceiveMessageRequest): Promise<Message> {
    const client = this.inbox.get();
    return this.call(client.receiveMessage.bind(client), request, orgId, 'inbox');
  }

  private call<Req, Res>(
    method: Parameters<typeof callAsSystem<Req, Res>>[3],
    request: Req,
    orgId: string,
    audience: 'contacts' | 'inbox',
  ): Promise<Res> {
    return callAsSystem(this.signer(), audience, orgId, method, request);
  }
}
