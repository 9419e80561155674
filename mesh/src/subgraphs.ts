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
}

export const SUBGRAPHS: Subgraph[] = [
  {
    name: 'identity',
    app: 'identity',
    proto: 'svc/identity/v1/identity_service.proto',
    grpcService: 'svc.identity.v1.IdentityService',
  },
  { name: 'inbox', app: 'inbox', proto: 'svc/inbox/v1/inbox_service.proto', grpcService: 'svc.inbox.v1.InboxService' },
  {
    name: 'contacts',
    app: 'contacts',
    proto: 'svc/contacts/v1/contacts_service.proto',
    grpcService: 'svc.contacts.v1.ContactsService',
  },
  {
    name: 'contactsErasure',
    app: 'contacts',
    proto: 'svc/contacts/v1/erasure.proto',
    grpcService: 'svc.contacts.v1.ContactErasureService',
  },
  {
    name: 'contactsPeopleFields',
    app: 'contacts',
    proto: 'svc/contacts/v1/people_fields.proto',
    grpcService: 'svc.contacts.v1.PeopleFieldsService',
  },
  {
    name: 'webhooks',
    app: 'webhook-ingress',
    proto: 'svc/webhooks/v1/webhook_ingress_service.proto',
    grpcService: 'svc.webhooks.v1.WebhookIngressService',
  },
  { name: 'flows', app: 'flows', proto: 'svc/flows/v1/flows_service.proto', grpcService: 'svc.flows.v1.FlowsService' },
  {
    name: 'inboxLabels',
    app: 'inbox',
    proto: 'svc/inbox/v1/labels.proto',
    grpcService: 'svc.inbox.v1.LabelService',
  },
  {
    name: 'inboxCollections',
    app: 'inbox',
    proto: 'svc/inbox/v1/collections.proto',
    grpcService: 'svc.inbox.v1.CollectionService',
  },
  { name: 'inboxSearch', app: 'inbox', proto: 'svc/inbox/v1/search.proto', grpcService: 'svc.inbox.v1.SearchService' },
  { name: 'inboxMedia', app: 'inbox', proto: 'svc/inbox/v1/media.proto', grpcService: 'svc.inbox.v1.MediaService' },
  {
    name: 'channels',
    app: 'channels',
    proto: 'svc/channels/v1/channels_service.proto',
    grpcService: 'svc.channels.v1.ChannelsService',
  },
  {
    name: 'channelsTemplates',
    app: 'channels',
    proto: 'svc/channels/v1/templates.proto',
    grpcService: 'svc.channels.v1.ChatAppATemplatesService',
  },
  {
    name: 'channelsBot',
    app: 'channels',
    proto: 'svc/channels/v1/bot_settings.proto',
    grpcService: 'svc.channels.v1.BotSettingsService',
  },
  {
    name: 'channelsPlatforms',
    app: 'channels',
    proto: 'svc/channels/v1/platform_channels.proto',
    grpcService: 'svc.channels.v1.PlatformChannelsService',
  },
  {
    name: 'channelsDelivery',
    app: 'channels',
    proto: 'svc/channels/v1/delivery.proto',
    grpcService: 'svc.channels.v1.DeliveryService',
  },
  {
    name: 'contentHelpArticles',
    app: 'content',
    proto: 'svc/content/v1/help_articles.proto',
    grpcService: 'svc.content.v1.HelpArticleService',
  },
  {
    name: 'contentHelpFolders',
    app: 'content',
    proto: 'svc/content/v1/help_folders.proto',
    grpcService: 'svc.content.v1.HelpFolderService',
  },
  {
    name: 'contentTaxonomy',
    app: 'content',
    proto: 'svc/content/v1/taxonomy.proto',
    grpcService: 'svc.content.v1.TaxonomyService',
  },
  {
    name: 'contentNews',
    app: 'content',
    proto: 'svc/content/v1/news_posts.proto',
    grpcService: 'svc.content.v1.NewsPostService',
  },
  {
    name: 'partnerWebhooks',
    app: 'partner',
    proto: 'svc/partner/v1/partner_webhooks.proto',
    grpcService: 'svc.partner.v1.PartnerWebhookService',
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
