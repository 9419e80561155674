import * as identityService from '@svc/proto/identity/v1';
import * as inboxService from '@svc/proto/inbox/v1';
import * as contactsService from '@svc/proto/contacts/v1';
import * as contactsErasure from '@svc/proto/contacts/v1/erasure';
import * as contactsPeopleFields from '@svc/proto/contacts/v1/people_fields';
import * as webhooksService from '@svc/proto/webhooks/v1';
import * as flowsService from '@svc/proto/flows/v1';
import * as inboxLabels from '@svc/proto/inbox/v1/labels';
import * as inboxCollections from '@svc/proto/inbox/v1/collections';
import * as inboxSearch from '@svc/proto/inbox/v1/search';
import * as inboxMedia from '@svc/proto/inbox/v1/media';
import * as channelsService from '@svc/proto/channels/v1';
import * as channelsTemplates from '@svc/proto/channels/v1/templates';
import * as channelsBot from '@svc/proto/channels/v1/bot_settings';
import * as channelsPlatforms from '@svc/proto/channels/v1/platform_channels';
import * as channelsDelivery from '@svc/proto/channels/v1/delivery';
import * as contentHelpArticles from '@svc/proto/content/v1/help_articles';
import * as contentHelpFolders from '@svc/proto/content/v1/help_folders';
import * as contentTaxonomy from '@svc/proto/content/v1/taxonomy';
import * as contentNews from '@svc/proto/content/v1/news_posts';
import * as identityClientOrgs from '@svc/proto/identity/v1/client_orgs';
import * as partnerWebhooks from '@svc/proto/partner/v1/partner_webhooks';
import * as partnerUsage from '@svc/proto/partner/v1/partner_usage';

/**
 * Every service the gateway composes: its subgraph name, its proto file (under proto/) and its fully qualified gRPC
 * service. Adding a service to the public API starts with a line here.
 */
export interface Subgraph {
  /** Unique subgraph name; also the `service` of routes. */
  name: string;
  /** The deployable serving it (a service folder); several subgraphs may share one (one proto file each). */
  app: string;
  proto: string;
  grpcService: string;
  /**
   * The ts-proto module generated from `proto` (the clients the services use): the gateway calls the service's methods
   * with its definitions and builds requests with its message types (mesh/src/route-calls.ts).
   */
  generated: object;
}

export const SUBGRAPHS: Subgraph[] = [
  {
    name: 'identity',
    app: 'identity',
    proto: 'svc/identity/v1/identity_service.proto',
    grpcService: 'svc.identity.v1.IdentityService',
    generated: identityService,
  },
  {
    name: 'inbox',
    app: 'inbox',
    proto: 'svc/inbox/v1/inbox_service.proto',
    grpcService: 'svc.inbox.v1.InboxService',
    generated: inboxService,
  },
  {
    name: 'identityClientOrgs',
    app: 'identity',
    proto: 'svc/identity/v1/client_orgs.proto',
    grpcService: 'svc.identity.v1.ClientOrgService',
    generated: identityClientOrgs,
  },
  {
    name: 'contacts',
    app: 'contacts',
    proto: 'svc/contacts/v1/contacts_service.proto',
    grpcService: 'svc.contacts.v1.ContactsService',
    generated: contactsService,
  },
  {
    name: 'contactsErasure',
    app: 'contacts',
    proto: 'svc/contacts/v1/erasure.proto',
    grpcService: 'svc.contacts.v1.ContactErasureService',
    generated: contactsErasure,
  },
  {
    name: 'contactsPeopleFields',
    app: 'contacts',
    proto: 'svc/contacts/v1/people_fields.proto',
    grpcService: 'svc.contacts.v1.PeopleFieldsService',
    generated: contactsPeopleFields,
  },
  {
    name: 'webhooks',
    app: 'webhook-ingress',
    proto: 'svc/webhooks/v1/webhook_ingress_service.proto',
    grpcService: 'svc.webhooks.v1.WebhookIngressService',
    generated: webhooksService,
  },
  {
    name: 'flows',
    app: 'flows',
    proto: 'svc/flows/v1/flows_service.proto',
    grpcService: 'svc.flows.v1.FlowsService',
    generated: flowsService,
  },
  {
    name: 'inboxLabels',
    app: 'inbox',
    proto: 'svc/inbox/v1/labels.proto',
    grpcService: 'svc.inbox.v1.LabelService',
    generated: inboxLabels,
  },
  {
    name: 'inboxCollections',
    app: 'inbox',
    proto: 'svc/inbox/v1/collections.proto',
    grpcService: 'svc.inbox.v1.CollectionService',
    generated: inboxCollections,
  },
  {
    name: 'inboxSearch',
    app: 'inbox',
    proto: 'svc/inbox/v1/search.proto',
    grpcService: 'svc.inbox.v1.SearchService',
    generated: inboxSearch,
  },
  {
    name: 'inboxMedia',
    app: 'inbox',
    proto: 'svc/inbox/v1/media.proto',
    grpcService: 'svc.inbox.v1.MediaService',
    generated: inboxMedia,
  },
  {
    name: 'channels',
    app: 'channels',
    proto: 'svc/channels/v1/channels_service.proto',
    grpcService: 'svc.channels.v1.ChannelsService',
    generated: channelsService,
  },
  {
    name: 'channelsTemplates',
    app: 'channels',
    proto: 'svc/channels/v1/templates.proto',
    grpcService: 'svc.channels.v1.ChatAppATemplatesService',
    generated: channelsTemplates,
  },
  {
    name: 'channelsBot',
    app: 'channels',
    proto: 'svc/channels/v1/bot_settings.proto',
    grpcService: 'svc.channels.v1.BotSettingsService',
    generated: channelsBot,
  },
  {
    name: 'channelsPlatforms',
    app: 'channels',
    proto: 'svc/channels/v1/platform_channels.proto',
    grpcService: 'svc.channels.v1.PlatformChannelsService',
    generated: channelsPlatforms,
  },
  {
    name: 'channelsDelivery',
    app: 'channels',
    proto: 'svc/channels/v1/delivery.proto',
    grpcService: 'svc.channels.v1.DeliveryService',
    generated: channelsDelivery,
  },
  {
    name: 'contentHelpArticles',
    app: 'content',
    proto: 'svc/content/v1/help_articles.proto',
    grpcService: 'svc.content.v1.HelpArticleService',
    generated: contentHelpArticles,
  },
  {
    name: 'contentHelpFolders',
    app: 'content',
    proto: 'svc/content/v1/help_folders.proto',
    grpcService: 'svc.content.v1.HelpFolderService',
    generated: contentHelpFolders,
  },
  {
    name: 'contentTaxonomy',
    app: 'content',
    proto: 'svc/content/v1/taxonomy.proto',
    grpcService: 'svc.content.v1.TaxonomyService',
    generated: contentTaxonomy,
  },
  {
    name: 'contentNews',
    app: 'content',
    proto: 'svc/content/v1/news_posts.proto',
    grpcService: 'svc.content.v1.NewsPostService',
    generated: contentNews,
  },
  {
    name: 'partnerWebhooks',
    app: 'partner',
    proto: 'svc/partner/v1/partner_webhooks.proto',
    grpcService: 'svc.partner.v1.PartnerWebhookService',
    generated: partnerWebhooks,
  },
  {
    name: 'partnerUsage',
    app: 'partner',
    proto: 'svc/partner/v1/partner_usage.proto',
    grpcService: 'svc.partner.v1.PartnerUsageService',
    generated: partnerUsage,
  },
];

/** The root-field name Mesh's gRPC loader gives a method: `svc_inbox_v1_InboxService_SendMessage`. */
export function rawFieldName(subgraph: string, method: string): string {
  const found = SUBGRAPHS.find((s) => s.name === subgraph);
  if (!found) throw new Error(`unknown subgraph ${subgraph}`);
  return `${found.grpcService.replaceAll('.', '_')}_${method}`;
}

/** `INBOX_GRPC_URL` etc.: where the standalone gateway finds each deployable. */
export function endpointVariable(app: string): string {
  return `${app.toUpperCase().replaceAll('-', '_')}_GRPC_URL`;
}

export function appsOfSubgraphs(): string[] {
  return [...new Set(SUBGRAPHS.map((s) => s.app))];
}
