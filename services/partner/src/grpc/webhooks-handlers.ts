import { implement, type ImplementDeps, type ServiceHandlers } from '@svc/kit';
import { PartnerWebhookServiceService } from '@svc/proto/partner/v1/partner_webhooks';
import { pageInfoOf } from '../domain/page';
import type { PartnerDeliveries } from '../domain/webhooks/deliveries';
import { deliveryView, webhookView } from '../domain/webhooks/views';
import type { PartnerWebhooks } from '../domain/webhooks/webhooks';

export const PARTNER_WEBHOOK_GRPC_SERVICE = 'svc.partner.v1.PartnerWebhookService';

export function partnerWebhookService(
  areas: { webhooks: PartnerWebhooks; deliveries: PartnerDeliveries },
  deps: ImplementDeps,
) {
  const { webhooks, deliveries } = areas;
  const handlers: ServiceHandlers<typeof PartnerWebhookServiceService> = {
    registerPartnerWebhook: async (request, { principal }) => {
      const { webhook, secret } = await webhooks.register(principal, request);
      return { webhook: webhookView(webhook), secret };
    },
    rotatePartnerWebhookSecret: async (request, { principal }) => {
      const { webhook, secret } = await webhooks.rotateSecret(principal, request.webhookId);
      return { webhook: webhookView(webhook), secret };
    },
    setPartnerWebhookEvents: async (request, { principal }) =>
      webhookView(await webhooks.setEvents(principal, request)),
    setPartnerWebhookStatus: async (request, { principal }) =>
      webhookView(await webhooks.setStatus(principal, request)),
    deletePartnerWebhook: async (request, { principal }) => {
      await webhooks.delete(principal, request.webhookId);
      return { ok: true };
    },
    listPartnerWebhooks: async (request, { principal }) => {
      const listed = await webhooks.list(principal, request);
      return { data: listed.webhooks.map(webhookView), page: pageInfoOf(listed.page, listed.totalCount) };
    },
    listPartnerWebhookDeliveries: async (request, { principal }) => {
      const listed = await deliveries.list(principal, request);
      return {
        data: listed.deliveries.map(({ delivery, attempts }) => deliveryView(delivery, attempts)),
        page: pageInfoOf(listed.page, listed.totalCount),
      };
    },
    replayPartnerWebhookDelivery: async (request, { principal }) => {
      const { delivery, attempts } = await deliveries.replay(principal, request.deliveryId);
      return deliveryView(delivery, attempts);
    },
  };
  return implement('partner', PartnerWebhookServiceService, handlers, deps);
}
