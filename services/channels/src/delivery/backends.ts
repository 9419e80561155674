import { Peer, type GrpcCallPolicy, type PrincipalSigner } from '@svc/kit';
import { callAsSystem, type BackendAddresses } from '../grpc/system-call';
import { ContactsServiceClient, type Contact } from '@svc/proto/contacts/v1';
import {
  InboxServiceClient,
  type DeliveryStatus,
  type Message,
  type MessageForDelivery,
  type UpdateDeliveryStatusResult,
} from '@svc/proto/inbox/v1';

/**
 * The calls the delivery side makes, each as SYSTEM of the message's org (kit trust policy: channels → contacts,
 * inbox). Failures come back as kit domain errors (UNAVAILABLE / DEADLINE_EXCEEDED: try again later).
 */
export class DeliveryBackends {
  private readonly contacts: Peer<ContactsServiceClient>;
  private readonly inbox: Peer<InboxServiceClient>;

  constructor(
    private readonly signer: () => PrincipalSigner,
    addresses: BackendAddresses,
    policy: GrpcCallPolicy,
  ) {
    this.contacts = new Peer(ContactsServiceClient, addresses.contacts, policy);
    this.inbox = new Peer(InboxServiceClient, addresses.inbox, policy);
  }

  close(): void {
    this.contacts.close();
    this.inbox.close();
  }

  messageForDelivery(orgId: string, messageId: string): Promise<MessageForDelivery> {
    const client = this.inbox.get();
    return this.call(client.getMessageForDelivery.bind(client), { messageId }, orgId, 'inbox');
  }

  updateDeliveryStatus(
    orgId: string,
    chatId: string,
    messageIds: string[],
    status: DeliveryStatus,
    failureReason?: string,
  ): Promise<UpdateDeliveryStatusResult> {
    const client = this.inbox.get();
    return this.call(
      client.updateDeliveryStatus.bind(client),
      { chatId, messageIds, status, failureReason },
      orgId,
      'inbox',
    );
  }

  requeueFailedMessage(orgId: string, messageId: string, platformTemplate: boolean, dryRun: boolean): Promise<Message> {
    const client = this.inbox.get();
    return this.call(client.requeueFailedMessage.bind(client), { messageId, platformTemplate, dryRun }, orgId, 'inbox');
  }

  contact(orgId: string, id: string): Promise<Contact> {
    const client = this.contacts.get();
    return this.call(client.getContact.bind(client), { id }, orgId, 'contacts');
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
