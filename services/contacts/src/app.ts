import type { ServiceError } from '@grpc/grpc-js';
import {
  Peer,
  callPolicyOf,
  ERASURE_TOPIC,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  channelsOfOrg,
  ServiceApp,
  errorCodeOfGrpcStatus,
  systemPrincipal,
  unary,
  type ServiceAppDeps,
  type Subscription,
  stopTogether,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { ContactsServiceService } from '@svc/proto/contacts/v1';
import { ContactErasureServiceService } from '@svc/proto/contacts/v1/erasure';
import { ErasureParticipantServiceClient } from '@svc/proto/erasure/v1';
import { PeopleFieldsServiceService } from '@svc/proto/contacts/v1/people_fields';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import type { ContactsConfig } from './config';
import { contactsData } from './data';
import { ChatOwnership, subscribeChatOwnership } from './domain/chat-ownership';
import type { ChatsOfOrg } from './domain/chat-app-a-id';
import { Contacts } from './domain/contacts';
import { ContactsErasurePart } from './domain/erasure/own-part';
import { contactsOrgPart } from './domain/erasure/org-part';
import { REMOTE_PARTICIPANTS, remotePreview, type RemoteParticipant } from './domain/erasure/preview';
import { subscribeErasureReceipts } from './domain/erasure/receipt-consumer';
import { Erasures } from './domain/erasure/receipts';
import { PEOPLE_TOPIC } from './domain/events';
import type { ChatOwnerOf } from './domain/lookup';
import { PeopleFieldDefinitions } from './domain/people-fields/definitions';
import { PeopleFieldValues } from './domain/people-fields/values';
import { contactsService } from './grpc/contacts-handlers';
import { CONTACT_ERASURE_GRPC_SERVICE, contactErasureService } from './grpc/erasure-handlers';
import { peopleFieldsService } from './grpc/people-fields-handlers';

export interface ContactsDeps extends ServiceAppDeps {
  /** Where the inbox listens, read at first use (the embedded stack knows it only after start). */
  inboxAddress?: () => string;
  /** Where channels listens, read at first use (the embedded stack starts channels after contacts). */
  channelsAddress?: () => string;
  /**
   * Where the other erasure participants listen (previewErase), read at first use; by default the inbox and channels
   * addresses above and FLOWS_GRPC_URL, WEBHOOK_INGRESS_GRPC_URL, WIDGET_API_GRPC_URL,
   * PARTNER_GRPC_URL.
   */
  erasureParticipants?: Partial<Record<RemoteParticipant, () => string>>;
}

export class ContactsApp extends ServiceApp<ContactsConfig> {
  private readonly inbox: Peer<InboxServiceClient>;
  private readonly channels: Peer<ChannelsServiceClient>;
  private chatOwnership: Subscription | undefined;
  private chats: ChatOwnership | undefined;
  private readonly participants: Record<RemoteParticipant, Peer<ErasureParticipantServiceClient>>;
  private erasures: Erasures | undefined;
  private erasureReceipts: Subscription | undefined;
  private orgErasure: OrgErasureParticipant | undefined;

  constructor(config: ContactsConfig, deps: ContactsDeps = {}) {
    super(
      {
        name: 'contacts',
        grpcServices: [
          'svc.contacts.v1.ContactsService',
          'svc.contacts.v1.PeopleFieldsService',
          CONTACT_ERASURE_GRPC_SERVICE,
        ],
        data: contactsData,
        publishes: [PEOPLE_TOPIC, ERASURE_TOPIC, ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    this.inbox = new Peer(InboxServiceClient, deps.inboxAddress ?? (() => config.INBOX_GRPC_URL), callPolicyOf(config));
    this.channels = new Peer(
      ChannelsServiceClient,
      deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL),
      callPolicyOf(config),
    );
    const participantAddress: Record<RemoteParticipant, () => string> = {
      inbox: deps.inboxAddress ?? (() => config.INBOX_GRPC_URL),
      channels: deps.channelsAddress ?? (() => config.CHANNELS_GRPC_URL),
      flows: () => config.FLOWS_GRPC_URL,
      'webhook-ingress': () => config.WEBHOOK_INGRESS_GRPC_URL,
      'widget-api': () => config.WIDGET_API_GRPC_URL,
      partner: () => config.PARTNER_GRPC_URL,
      ...deps.erasureParticipants,
    };
    this.participants = Object.fromEntries(
      REMOTE_PARTICIPANTS.map((name) => [
        name,
        new Peer(ErasureParticipantServiceClient, participantAddress[name], callPolicyOf(config)),
      ]),
    ) as Record<RemoteParticipant, Peer<ErasureParticipantServiceClient>>;
  }

  /** The inbox names a chat's contact; an unknown chat (or no inbox configured) owns nobody. */
  private readonly chatOwnerOf: ChatOwnerOf = async (orgId, chatId) => {
    try {
      const client = this.inbox.get();
      const chat = await unary(
        client.getChat.bind(client),
        { chatId },
        this.signer.metadata(systemPrincipal(orgId), 'inbox'),
      );
      return chat.contact?._id || undefined;
    } catch (error) {
      if (errorCodeOfGrpcStatus((error as ServiceError).code ?? -1) === 'NOT_FOUND') return undefined;
      throw error;
    }
  };

  private readonly chatsOfOrg: ChatsOfOrg = async (orgId, chatIds, channelType) => {
    const client = this.inbox.get();
    const found = await unary(
      client.findChats.bind(client),
      { chatIds, channelType },
      this.signer.metadata(systemPrincipal(orgId), 'inbox'),
    );
    return found.chatIds;
  };

  protected register(): void {
    const contacts = new Contacts(
      this.dataSource,
      () => this.relay,
      {
        chatsOfOrg: this.chatsOfOrg,
        channelsOfOrg: channelsOfOrg(this.channels, () => this.signer),
      },
      this.logger,
    );
    this.chats = new ChatOwnership(this.dataSource, () => this.relay);
    this.grpc.add(
      ContactsServiceService,
      contactsService(
        { contacts, chats: this.chats, dataSource: this.dataSource, chatOwnerOf: this.chatOwnerOf },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.contacts.v1.ContactsService',
    );
    this.orgErasure = new OrgErasureParticipant(this, contactsOrgPart());
    const ownPart = new ContactsErasurePart(this.dataSource);
    this.erasures = new Erasures(this.dataSource, () => this.relay, ownPart);
    const remote = Object.fromEntries(
      REMOTE_PARTICIPANTS.map((name) => [
        name,
        remotePreview(name, this.participants[name], () => this.signer, this.logger),
      ]),
    ) as Record<RemoteParticipant, ReturnType<typeof remotePreview>>;
    this.grpc.add(
      ContactErasureServiceService,
      contactErasureService(
        { dataSource: this.dataSource, erasures: this.erasures, ownPart, remote },
        { verifier: this.verifier, logger: this.logger },
      ),
      CONTACT_ERASURE_GRPC_SERVICE,
    );
    this.grpc.add(
      PeopleFieldsServiceService,
      peopleFieldsService(
        {
          definitions: new PeopleFieldDefinitions(this.dataSource),
          values: new PeopleFieldValues(this.dataSource, () => this.relay),
        },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.contacts.v1.PeopleFieldsService',
    );
  }

  protected override async startWorkers(): Promise<void> {
    if (!this.chats || !this.erasures) return;
    this.erasureReceipts = await subscribeErasureReceipts(
      this.bus,
      this.erasures,
      this.config.KAFKA_TOPIC_PREFIX,
      this.logger,
    );
    this.chatOwnership = await subscribeChatOwnership(
      this.bus,
      this.chats,
      this.config.KAFKA_TOPIC_PREFIX,
      this.logger,
    );
    await this.orgErasure?.start();
  }

  protected override async stopWorkers(): Promise<void> {
    await stopTogether([this.orgErasure, this.chatOwnership, this.erasureReceipts]);
    this.inbox.close();
    this.channels.close();
    for (const peer of Object.values(this.participants)) peer.close();
  }
}
