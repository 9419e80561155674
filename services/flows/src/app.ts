import {
  ERASURE_PARTICIPANT_GRPC_SERVICE,
  ERASURE_TOPIC,
  ErasureParticipant,
  ORG_ERASURE_TOPIC,
  OrgErasureParticipant,
  Peer,
  ServiceApp,
  contactRowsPart,
  callPolicyOf,
  domainErrorOf,
  systemPrincipal,
  unary,
  type Audience,
  type ServiceAppDeps,
  type Subscription,
  stopTogether,
} from '@svc/kit';
import type { ServiceError } from '@grpc/grpc-js';
import { AttributeSource, ContactsServiceClient } from '@svc/proto/contacts/v1';
import { PeopleFieldsServiceClient } from '@svc/proto/contacts/v1/people_fields';
import { FlowsServiceService } from '@svc/proto/flows/v1';
import { IdentityServiceClient } from '@svc/proto/identity/v1';
import {
  AddChatLabelRequest,
  AssignChatRequest,
  CreateCombinedMessageInput,
  InboxServiceClient,
} from '@svc/proto/inbox/v1';
import { LabelServiceClient } from '@svc/proto/inbox/v1/labels';
import { WebhookIngressServiceClient } from '@svc/proto/webhooks/v1';
import { stepRetryPolicyOf, type FlowsConfig } from './config';
import { flowsData } from './data';
import { FLOWS_CONTACT_ROWS } from './domain/erasure';
import { flowsOrgPart } from './domain/org-erasure';
import { FLOWS_TOPIC } from './domain/events';
import { Flows } from './domain/flows';
import type { OrgDirectory } from './domain/references';
import { Runner } from './domain/runner';
import { Runs } from './domain/runs';
import type { StepActions } from './domain/steps';
import { subscribeWebhooks } from './domain/webhook-consumer';
import { flowsService } from './grpc/flows-handlers';

export interface FlowsDeps extends ServiceAppDeps {
  /** Where identity, the inbox and contacts listen, read at first use (the embedded stack knows them after start). */
  identityAddress?: () => string;
  inboxAddress?: () => string;
  contactsAddress?: () => string;
  webhooksAddress?: () => string;
}

/** Re-throws a downstream failure as the domain error it was (so it is logged and classified, not INTERNAL). */
async function call<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw domainErrorOf(error as ServiceError);
  }
}

export class FlowsApp extends ServiceApp<FlowsConfig> {
  private readonly identity: Peer<IdentityServiceClient>;
  private readonly inbox: Peer<InboxServiceClient>;
  private readonly labels: Peer<LabelServiceClient>;
  private readonly contacts: Peer<ContactsServiceClient>;
  private readonly peopleFields: Peer<PeopleFieldsServiceClient>;
  private readonly webhooks: Peer<WebhookIngressServiceClient>;
  private runs: Runs | undefined;
  private runner: Runner | undefined;
  private consumer: Subscription | undefined;
  private erasure: ErasureParticipant | undefined;
  private orgErasure: OrgErasureParticipant | undefined;

  constructor(config: FlowsConfig, deps: FlowsDeps = {}) {
    super(
      {
        name: 'flows',
        grpcServices: ['svc.flows.v1.FlowsService', ERASURE_PARTICIPANT_GRPC_SERVICE],
        data: flowsData,
        publishes: [FLOWS_TOPIC, ERASURE_TOPIC, ORG_ERASURE_TOPIC],
      },
      config,
      deps,
    );
    const policy = callPolicyOf(config);
    this.identity = new Peer(IdentityServiceClient, deps.identityAddress ?? (() => config.IDENTITY_GRPC_URL), policy);
    const inboxAddress = deps.inboxAddress ?? (() => config.INBOX_GRPC_URL);
    this.inbox = new Peer(InboxServiceClient, inboxAddress, policy);
    this.labels = new Peer(LabelServiceClient, inboxAddress, policy);
    const contactsAddress = deps.contactsAddress ?? (() => config.CONTACTS_GRPC_URL);
    this.contacts = new Peer(ContactsServiceClient, contactsAddress, policy);
    this.peopleFields = new Peer(PeopleFieldsServiceClient, contactsAddress, policy);
    this.webhooks = new Peer(
      WebhookIngressServiceClient,
      deps.webhooksAddress ?? (() => config.WEBHOOK_INGRESS_GRPC_URL),
      policy,
    );
  }

  /** Whose the ids a flow names are: always the service that owns each kind (docs/decisions/0042). */
  private readonly directory: OrgDirectory = {
    members: async (orgId, memberIds) => {
      const identity = this.identity.get();
      return (await call(unary(identity.findMembers.bind(identity), { memberIds }, this.as(orgId, 'identity'))))
        .memberIds;
    },
    labels: async (orgId, labelIds) => {
      const labels = this.labels.get();
      return (await call(unary(labels.findLabels.bind(labels), { labelIds }, this.as(orgId, 'inbox')))).labelIds;
    },
    connections: async (orgId, connectionIds) => {
      const webhooks = this.webhooks.get();
      const found = await call(
        unary(webhooks.findInboundConnections.bind(webhooks), { connectionIds }, this.as(orgId, 'webhook-ingress')),
      );
      return found.connectionIds;
    },
    peopleFields: async (orgId, keys) => {
      const fields = this.peopleFields.get();
      const defined = await call(unary(fields.listPeopleFieldDefinitions.bind(fields), {}, this.as(orgId, 'contacts')));
      const known = new Set(defined.data.map((definition) => definition.key));
      return keys.filter((key) => known.has(key));
    },
  };

  private as(orgId: string, audience: Audience) {
    return this.signer.metadata(systemPrincipal(orgId), audience);
  }

  private readonly actions: StepActions = {
    sendMessage: async (orgId, chatId, text, internal, idempotencyKey) => {
      const inbox = this.inbox.get();
      await call(
        unary(
          inbox.sendMessage.bind(inbox),
          { chatId, input: CreateCombinedMessageInput.fromPartial({ text, internal }), idempotencyKey },
          this.as(orgId, 'inbox'),
        ),
      );
    },
    closeChat: async (orgId, chatId) => {
      const inbox = this.inbox.get();
      await call(unary(inbox.closeChat.bind(inbox), { chatId }, this.as(orgId, 'inbox')));
    },
    assign: async (orgId, chatId, operatorId) => {
      const inbox = this.inbox.get();
      await call(
        unary(
          inbox.assignChatToOperator.bind(inbox),
          AssignChatRequest.fromPartial({ chatId, operatorId }),
          this.as(orgId, 'inbox'),
        ),
      );
    },
    addLabel: async (orgId, chatId, labelId) => {
      const inbox = this.inbox.get();
      await call(
        unary(
          inbox.addChatLabel.bind(inbox),
          AddChatLabelRequest.fromPartial({ chatId, labelId }),
          this.as(orgId, 'inbox'),
        ),
      );
    },
    setContactAttribute: async (orgId, contactId, key, value) => {
      const contacts = this.contacts.get();
      await call(
        unary(
          contacts.updateContact.bind(contacts),
          {
            id: contactId,
            input: {
              customAttributesJson: JSON.stringify({ [key]: value }),
              // The rendered text is parsed as the field's type; what does not parse refuses the write.
              customAttributesSource: AttributeSource.ATTRIBUTE_SOURCE_TEXT,
              identities: [],
            },
          },
          this.as(orgId, 'contacts'),
        ),
      );
    },
  };

  private readonly contactOfChat = async (orgId: string, chatId: string): Promise<string> => {
    const inbox = this.inbox.get();
    const chat = await call(unary(inbox.getChat.bind(inbox), { chatId }, this.as(orgId, 'inbox')));
    return chat.contact?._id ?? '';
  };

  protected register(): void {
    this.erasure = new ErasureParticipant(this, contactRowsPart('flows', this.dataSource, FLOWS_CONTACT_ROWS));
    this.orgErasure = new OrgErasureParticipant(this, flowsOrgPart());
    this.runner = new Runner(
      this.dataSource,
      this.actions,
      this.logger,
      this.config.FLOWS_RUNNER_INTERVAL_MS,
      this.config.FLOWS_RUN_LEASE_MS,
      stepRetryPolicyOf(this.config),
    );
    this.runs = new Runs(this.dataSource, () => this.runner?.wake());
    this.grpc.add(
      FlowsServiceService,
      flowsService(
        {
          flows: new Flows(this.dataSource, () => this.relay, this.directory),
          runs: this.runs,
          contactOfChat: this.contactOfChat,
        },
        { verifier: this.verifier, logger: this.logger },
      ),
      'svc.flows.v1.FlowsService',
    );
  }

  /** Consumes `svc.webhooks.received.v1`; tests stop and restart it to prove nothing accepted is lost or doubled. */
  async startConsumer(): Promise<void> {
    if (this.consumer || !this.runs) return;
    this.consumer = await subscribeWebhooks(this.bus, this.runs, this.config.KAFKA_TOPIC_PREFIX, this.logger);
  }

  async stopConsumer(): Promise<void> {
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.stop();
  }

  protected override async startWorkers(): Promise<void> {
    this.runner?.start();
    await this.startConsumer();
    await this.erasure?.start();
    await this.orgErasure?.start();
  }

  protected override async stopWorkers(): Promise<void> {
    // The consumers together; then the runner, which runs what the webhook consumer started.
    await stopTogether([{ stop: () => this.stopConsumer() }, this.erasure, this.orgErasure]);
    await this.runner?.stop();
    this.identity.close();
    this.inbox.close();
    this.labels.close();
    this.contacts.close();
    this.peopleFields.close();
    this.webhooks.close();
  }
}
