import { randomBytes } from 'node:crypto';
import { newId } from '@svc/kit';
import type { StackHarness } from './stack-harness';

/**
 * A delivery with `attempts` failed attempts, written where the delivery engine writes one (no public operation creates
 * deliveries: they come from client orgs' events), for tests of the delivery log, replay and isolation.
 */
export async function insertPartnerDelivery(
  harness: StackHarness,
  webhook: { orgId: string; id: string },
  { status = 'FAILED', attempts = 1, createdAt = new Date() } = {},
): Promise<string> {
  const id = `msg_${randomBytes(12).toString('hex')}`;
  const { manager } = harness.stack.partner.dataSource;
  await manager.getRepository('PartnerDeliveryRow').insert({
    id,
    orgId: webhook.orgId,
    webhookId: webhook.id,
    clientOrgId: newId(),
    eventId: newId(),
    eventType: 'message.created',
    contactId: null,
    payload: '{}',
    status,
    attemptCount: attempts,
    nextAttemptAt: null,
    createdAt,
    deliveredAt: null,
    updatedAt: createdAt,
  });
  for (let attempt = 1; attempt <= attempts; attempt++)
    await manager.getRepository('PartnerDeliveryAttemptRow').insert({
      id: newId(),
      orgId: webhook.orgId,
      deliveryId: id,
      attempt,
      attemptedAt: createdAt,
      statusCode: 503,
      latencyMs: 40,
      responseExcerpt: 'busy',
      error: null,
    });
  return id;
}
