import { channelsRoutes } from './channels';
import { channelsTemplatesRoutes } from './channels-templates';
import { channelsBotRoutes } from './channels-bot';
import { channelsPlatformRoutes } from './channels-platforms';
import { channelsDeliveryRoutes } from './channels-delivery';
import { contactsRoutes } from './contacts';
import { contactsErasureRoutes } from './contacts-erasure';
import { contactsPeopleFieldRoutes } from './contacts-people-fields';
import { contentHelpArticleRoutes } from './content-help-articles';
import { contentHelpFolderRoutes } from './content-help-folders';
import { contentTaxonomyRoutes } from './content-taxonomy';
import { contentNewsRoutes } from './content-news';
import { flowRoutes } from './flows';
import { identityRoutes } from './identity';
import { inboxRoutes } from './inbox';
import { inboxCollectionRoutes } from './inbox-collections';
import { inboxLabelRoutes } from './inbox-labels';
import { inboxMediaRoutes } from './inbox-media';
import { inboxSearchRoutes } from './inbox-search';
import { partnerWebhookRoutes } from './partner-webhooks';
import type { Route } from './route';
import { webhookRoutes } from './webhooks';

export type { Route } from './route';

/** Every public root field with its gRPC route; one file per service. */
export const ROUTES: Record<string, Route> = {
  ...identityRoutes,
  ...inboxRoutes,
  ...inboxLabelRoutes,
  ...inboxCollectionRoutes,
  ...inboxSearchRoutes,
  ...inboxMediaRoutes,
  ...contactsRoutes,
  ...contactsErasureRoutes,
  ...contactsPeopleFieldRoutes,
  ...webhookRoutes,
  ...flowRoutes,
  ...channelsRoutes,
  ...channelsTemplatesRoutes,
  ...channelsBotRoutes,
  ...channelsPlatformRoutes,
  ...channelsDeliveryRoutes,
  ...contentHelpArticleRoutes,
  ...contentHelpFolderRoutes,
  ...contentTaxonomyRoutes,
  ...contentNewsRoutes,
  ...partnerWebhookRoutes,
};
