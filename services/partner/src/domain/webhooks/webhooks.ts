import type { DataSource, EntityManager } from 'typeorm';
import { Conflict, InvalidArgument, NotFound, newId, now, type Principal } from '@svc/kit';
import {
  PartnerWebhookDisabledReason,
  PartnerWebhookDeliveryState_Status as DeliveryStatus,
  PartnerWebhookState_Status as WebhookStatus,
  type ListPartnerWebhooksRequest,
  type RegisterPartnerWebhookRequest,
  type SetPartnerWebhookEventsRequest,
  type SetPartnerWebhookStatusRequest,
} from '@svc/proto/partner/v1/partner_webhooks';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow, PartnerWebhookRow } from '../../entities';
import type { EndpointPolicy } from '../endpoint-address';
import { offsetPageOf, type OffsetPage } from '../page';
import { requirePartnerAdmin } from '../partner-admin';
import type { WebhookSecrets } from '../webhook-secrets';
import { checkedEndpointUrl } from './endpoint';
import { MAX_WEBHOOKS_PER_PROVIDER, descriptionOf, eventKindsOf, webhookIdOf } from './rules';

/** A webhook with the secret to show once (register, rotate). */
export interface WebhookWithSecret {
  webhook: PartnerWebhookRow;
  secret: string;
}

export interface WebhookPage {
  webhooks: PartnerWebhookRow[];
  page: OffsetPage;
  totalCount: number;
}

/** A webhook of the provider org, or NOT_FOUND: the same for another org's id and an unknown one. */
export async function findWebhook(manager: EntityManager, orgId: string, id: string): Promise<PartnerWebhookRow> {
  const webhook = await manager.findOneBy(PartnerWebhookRow, { id, orgId });
  if (!webhook) throw new NotFound('webhookId names no partner webhook of this org', { field: 'webhookId' });
  return webhook;
}

/**
 * The partner webhooks of a provider org (docs/partner-webhooks.md): registration with the SSRF guard, secrets
 * and their rotation, the event kinds, enabling and disabling, deletion with the delivery log.
 */
export class PartnerWebhooks {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secrets: WebhookSecrets,
    private readonly endpoints: EndpointPolicy,
    private readonly clock: () => Date = now,
  ) {}

  async register(principal: Principal, request: RegisterPartnerWebhookRequest): Promise<WebhookWithSecret> {
    const orgId = requirePartnerAdmin(principal);
    const events = eventKindsOf(request.events);
    const description = descriptionOf(request.description);
    const url = await checkedEndpointUrl(request.url, this.endpoints);
    return this.dataSource.transaction(async (manager) => {
      const count = await manager.countBy(PartnerWebhookRow, { orgId });
      if (count >= MAX_WEBHOOKS_PER_PROVIDER)
        throw new Conflict(
          `an org has at most ${MAX_WEBHOOKS_PER_PROVIDER} partner webhooks (deletePartnerWebhook removes one)`,
        );
      const at = this.clock();
      const id = newId(at);
      const issued = this.secrets.issue({ orgId, id });
      const webhook: PartnerWebhookRow = {
        id,
        orgId,
        url,
        events,
        status: WebhookStatus.ENABLED,
        disabledReason: null,
        disabledAt: null,
        description,
        ...issued.columns,
        failingSince: null,
        createdAt: at,
        updatedAt: at,
      };
      await manager.insert(PartnerWebhookRow, webhook);
      return { webhook, secret: issued.secret };
    });
  }

  async rotateSecret(principal: Principal, webhookId: string): Promise<WebhookWithSecret> {
    const orgId = requirePartnerAdmin(principal);
    const id = webhookIdOf(webhookId);
    return this.dataSource.transaction(async (manager) => {
      const webhook = await findWebhook(manager, orgId, id);
      const at = this.clock();
      const rotated = this.secrets.rotate(webhook, at);
      const changed = { ...rotated.columns, updatedAt: at };
      await manager.update(PartnerWebhookRow, { id, orgId }, changed);
      return { webhook: { ...webhook, ...changed }, secret: rotated.secret };
    });
  }

  async setEvents(principal: Principal, request: SetPartnerWebhookEventsRequest): Promise<PartnerWebhookRow> {
    const orgId = requirePartnerAdmin(principal);
    const id = webhookIdOf(request.webhookId);
    const events = eventKindsOf(request.events);
    return this.dataSource.transaction(async (manager) => {
      const webhook = await findWebhook(manager, orgId, id);
      const changed = { events, updatedAt: this.clock() };
      await manager.update(PartnerWebhookRow, { id, orgId }, changed);
      return { ...webhook, ...changed };
    });
  }

  /**
   * ENABLED clears the disabled reason and time and the failure run, and releases the webhook's HELD deliveries
   * (PENDING, due now). DISABLED by hand is reason MANUAL; new deliveries are then HELD by the delivery engine. Setting
   * the status a webhook already has changes nothing (a disabled webhook keeps the reason it was first disabled for).
   */
  async setStatus(principal: Principal, request: SetPartnerWebhookStatusRequest): Promise<PartnerWebhookRow> {
    const orgId = requirePartnerAdmin(principal);
    const id = webhookIdOf(request.webhookId);
    const status = request.status;
    if (status !== WebhookStatus.ENABLED && status !== WebhookStatus.DISABLED)
      throw new InvalidArgument('status must be ENABLED or DISABLED', { field: 'status' });
    return this.dataSource.transaction(async (manager) => {
      const webhook = await findWebhook(manager, orgId, id);
      const at = this.clock();
      let changed: Partial<PartnerWebhookRow> = {};
      if (webhook.status !== status)
        changed =
          status === WebhookStatus.ENABLED
            ? { status, disabledReason: null, disabledAt: null, failingSince: null, updatedAt: at }
            : { status, disabledReason: PartnerWebhookDisabledReason.MANUAL, disabledAt: at, updatedAt: at };
      if (Object.keys(changed).length) await manager.update(PartnerWebhookRow, { id, orgId }, changed);
      // Also when it was already ENABLED: a delivery held while a disable was being undone is not left behind.
      if (status === WebhookStatus.ENABLED)
        await manager.update(
          PartnerDeliveryRow,
          { orgId, webhookId: id, status: DeliveryStatus.HELD },
          { status: DeliveryStatus.PENDING, nextAttemptAt: at, updatedAt: at },
        );
      return { ...webhook, ...changed };
    });
  }

  /** Removes the webhook with its deliveries and their attempts; an id already deleted is NOT_FOUND. */
  async delete(principal: Principal, webhookId: string): Promise<void> {
    const orgId = requirePartnerAdmin(principal);
    const id = webhookIdOf(webhookId);
    await this.dataSource.transaction(async (manager) => {
      await findWebhook(manager, orgId, id);
      await manager
        .createQueryBuilder()
        .delete()
        .from(PartnerDeliveryAttemptRow)
        .where('org_id = :orgId', { orgId })
        .andWhere(
          'delivery_id IN (SELECT d.id FROM partner_deliveries d WHERE d.org_id = :orgId AND d.webhook_id = :id)',
          {
            id,
          },
        )
        .execute();
      await manager.delete(PartnerDeliveryRow, { orgId, webhookId: id });
      await manager.delete(PartnerWebhookRow, { orgId, id });
    });
  }

  /** The org's webhooks, oldest first (id breaks ties). */
  async list(principal: Principal, request: ListPartnerWebhooksRequest): Promise<WebhookPage> {
    const orgId = requirePartnerAdmin(principal);
    const page = offsetPageOf(request.page);
    const [webhooks, totalCount] = await this.dataSource.manager.findAndCount(PartnerWebhookRow, {
      where: { orgId },
      order: { createdAt: 'ASC', id: 'ASC' },
      skip: page.offset,
      take: page.limit,
    });
    return { webhooks, page, totalCount };
  }
}
