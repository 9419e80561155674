import type { EntityManager } from 'typeorm';
import { entitySql } from '@svc/kit';
import { PartnerWebhookDeliveryState_Status as DeliveryStatus } from '@svc/proto/partner/v1/partner_webhooks';
import { PartnerDeliveryRow } from '../../entities';

/**
 * A webhook disabled by 410 or FAILING holds its PENDING deliveries: HELD, no next attempt (one disabled by hand has
 * its deliveries held by the engine as each comes due). Enabling it again (setPartnerWebhookStatus) resumes them:
 * PENDING, due at once, their schedule continuing from the attempts they made.
 */
export function holdPending(manager: EntityManager, webhookId: string, at: Date): Promise<number> {
  return entitySql(manager.connection, PartnerDeliveryRow).update(
    manager,
    { status: DeliveryStatus.HELD, nextAttemptAt: null, updatedAt: at },
    { webhookId, status: DeliveryStatus.PENDING },
  );
}
