import type { ServiceError } from '@grpc/grpc-js';
import {
  Peer,
  callPolicyOf,
  channelsOfOrg,
  ServiceApp,
  errorCodeOfGrpcStatus,
  systemPrincipal,
  unary,
  type ServiceAppDeps,
  type Subscription,
} from '@svc/kit';
import { ChannelsServiceClient } from '@svc/proto/channels/v1';
import { ContactsServiceService } from '@svc/proto/contacts/v1';
import { PeopleFieldsServiceService } from '@svc/proto/contacts/v1/people_fields';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import type { ContactsConfig } from './config';
import { contactsData } from './data';
import { ChatOwnership, subscribeChatOwnership } from './domain/chat-ownership';
import { Contacts, type ChatsOfOrg } from './domain/contacts';
import { PEOPLE_TOPIC } from './domain/events';
import type { ChatOwnerOf } from './domain/lookup';
import { PeopleFieldDefinitions } from './domain/people-fields/definitions';
import { PeopleFieldValues } from './domain/people-fields/values';
import { contactsService } from './grpc/contacts-handlers';
import { peopleFieldsService } from './grpc/people-fields-handlers';

export interface ContactsDeps extends ServiceAppDeps {
  /** Where the inbox listens, read at first use (the embedded stack knows it only after start). */
  inboxAddress?: () => string;
  /** Where channels listens, read at first use (the embedded stack starts channels after contacts). */
  channelsAddress?: () => string;
}

export class ContactsApp extends ServiceApp<ContactsConfig> {
  private readonly inbox: Peer<InboxServiceClient>;
  private readonly channels: Peer<ChannelsServiceClient>;
  private chatOwnership: Subscription | undefined;
  private chats: ChatOwnership | undefined;

  constructor(config: ContactsConfig, deps: ContactsDeps = {}) {
    super(
      {
        name: 'contacts',
        grpcServices: ['svc.contacts.v1.ContactsService', 'svc.contacts.v1.PeopleFieldsService'],
        data: contactsData,
        publishes: [PEOPLE_TOPIC],
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

  private readonly chatsOfOrg: ChatsOfOrg = async (orgId, chatIds) => {
    const client = this.inbox.get();
    const found = await unary(
      client.findChats.bind(client),
      { chatIds },
      this.signer.metadata(systemPrincipal(orgId), 'inbox'),
    );
    return found.chatIds;
  };

  protected register(): void {
    const contacts = new Contacts(this.dataSource, () => this.relay, {
      chatsOfOrg: this.chatsOfOrg,
      channelsOfOrg: channelsOfOrg(this.channels, () => this.signer),
    });
    this.chats = new ChatOwnership(this.dataSource, () => this.relay);
    this.grpc.add(
      ContactsServiceService,
      contactsService(
        { contacts, chats: this.chats, dataSource: this.dataSource, chatOwnerOf: this.chatOwnerOf },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.contacts.v1.ContactsService',
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
    if (!this.chats) return;
    this.chatOwnership = await subscribeChatOwnership(
      this.bus,
      this.chats,
      this.config.KAFKA_TOPIC_PREFIX,
      this.logger,
    );
  }

  protected override async stopWorkers(): Promise<void> {
    await this.chatOwnership?.stop();
    this.inbox.close();
    this.channels.close();
  }
}
