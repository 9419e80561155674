import { contentPageRequest, given } from './content-page';
import type { Route } from './route';

type Json = Record<string, unknown>;

/** proto3 leaves empty lists out of an answer. */
const webhook = (result: Json): Json => ({ ...result, events: result.events ?? [] });
const withSecret = (result: Json): Json => ({
  ...result,
  webhook: webhook((result.webhook as Json | undefined) ?? {}),
});
const delivery = (result: Json): Json => ({ ...result, attempts: result.attempts ?? [] });

/** A partner list (`data`, `page`) as the public page type. */
const page =
  (item: (row: Json) => Json) =>
  (result: Json): Json => {
    const info = (result.page as Json | undefined) ?? {};
    return {
      data: ((result.data as Json[] | undefined) ?? []).map(item),
      totalCount: info.totalCount ?? 0,
      hasMore: info.hasMore ?? false,
    };
  };

const byWebhookId = (args: Json): Json => ({ ...given(args), webhookId: args.id });

export const partnerWebhookRoutes: Record<string, Route> = {
  partnerWebhooks: {
    service: 'partnerWebhooks',
    method: 'ListPartnerWebhooks',
    request: contentPageRequest,
    response: page(webhook),
  },
  partnerWebhookDeliveries: {
    service: 'partnerWebhooks',
    method: 'ListPartnerWebhookDeliveries',
    request: contentPageRequest,
    response: page(delivery),
  },
  registerPartnerWebhook: {
    service: 'partnerWebhooks',
    method: 'RegisterPartnerWebhook',
    request: (args) => ({ ...(args.input as Json) }),
    response: withSecret,
  },
  rotatePartnerWebhookSecret: {
    service: 'partnerWebhooks',
    method: 'RotatePartnerWebhookSecret',
    request: byWebhookId,
    response: withSecret,
  },
  setPartnerWebhookEvents: {
    service: 'partnerWebhooks',
    method: 'SetPartnerWebhookEvents',
    request: byWebhookId,
    response: webhook,
  },
  setPartnerWebhookStatus: {
    service: 'partnerWebhooks',
    method: 'SetPartnerWebhookStatus',
    request: byWebhookId,
    response: webhook,
  },
  deletePartnerWebhook: { service: 'partnerWebhooks', method: 'DeletePartnerWebhook', request: byWebhookId },
  replayPartnerWebhookDelivery: {
    service: 'partnerWebhooks',
    method: 'ReplayPartnerWebhookDelivery',
    request: (args) => ({ deliveryId: args.id }),
    response: delivery,
  },
};
