import { In, type DataSource } from 'typeorm';
import { NotFound, offsetPageOf, type OffsetPage, type Principal } from '@svc/kit';
import {
  PartnerWebhookDeliveryState_Status as DeliveryStatus,
  type ListPartnerWebhookDeliveriesRequest,
} from '@svc/proto/partner/v1/partner_webhooks';
import { PartnerDeliveryAttemptRow, PartnerDeliveryRow } from '../../entities';
import { requirePartnerAdmin } from '../partner-admin';
import { deliveryIdOf, webhookIdOf } from './rules';
import { findWebhook } from './webhooks';

/** A delivery of the log with its attempts, in attempt order. */
export interface LoggedDelivery {
  delivery: PartnerDeliveryRow;
  attempts: PartnerDeliveryAttemptRow[];
}

export interface DeliveryPage {
  deliveries: LoggedDelivery[];
  page: OffsetPage;
  totalCount: number;
}

/**
 * Sends a delivery of `orgId` again (replayPartnerWebhookDelivery): the delivery engine's, answering the delivery as
 * it stands after the replay was started. The delivery exists and is the org's when this is called.
 */
export interface DeliveryReplayer {
  replay(orgId: string, deliveryId: string): Promise<PartnerDeliveryRow>;
}

/** The delivery log of a provider's webhooks and replay (docs/partner-webhooks.md). */
export class PartnerDeliveries {
  constructor(
    private readonly dataSource: DataSource,
    private readonly replayer: () => DeliveryReplayer,
  ) {}

  /** One webhook's deliveries, newest first (id breaks ties), each with its attempts; optionally of one status. */
  async list(principal: Principal, request: ListPartnerWebhookDeliveriesRequest): Promise<DeliveryPage> {
    const orgId = requirePartnerAdmin(principal);
    const webhookId = webhookIdOf(request.webhookId);
    const page = offsetPageOf(request.page);
    const manager = this.dataSource.manager;
    await findWebhook(manager, orgId, webhookId);
    const status =
      request.status === undefined || request.status === DeliveryStatus.STATUS_UNSPECIFIED ? undefined : request.status;
    const [rows, totalCount] = await manager.findAndCount(PartnerDeliveryRow, {
      where: { orgId, webhookId, ...(status === undefined ? {} : { status }) },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: page.offset,
      take: page.limit,
    });
    return { deliveries: await this.withAttempts(orgId, rows), page, totalCount };
  }

  /** Replays a delivery of the org; another org's or an unknown one is NOT_FOUND. */
  async replay(principal: Principal, id: string): Promise<LoggedDelivery> {
    const orgId = requirePartnerAdmin(principal);
    const deliveryId = deliveryIdOf(id);
    const found = await this.dataSource.manager.existsBy(PartnerDeliveryRow, { orgId, id: deliveryId });
    if (!found) throw new NotFound('deliveryId names no delivery of this org', { field: 'deliveryId' });
    const delivery = await this.replayer().replay(orgId, deliveryId);
    const [logged] = await this.withAttempts(orgId, [delivery]);
    return logged as LoggedDelivery;
  }

  private async withAttempts(orgId: string, deliveries: PartnerDeliveryRow[]): Promise<LoggedDelivery[]> {
    if (!deliveries.length) return [];
    const attempts = await this.dataSource.manager.find(PartnerDeliveryAttemptRow, {
      where: { orgId, deliveryId: In(deliveries.map((d) => d.id)) },
      order: { attempt: 'ASC' },
    });
    return deliveries.map((delivery) => ({
      delivery,
      attempts: attempts.filter((attempt) => attempt.deliveryId === delivery.id),
    }));
  }
}
