import { In, type DataSource } from 'typeorm';
import { PartnerWebhookDeliveryState_Status as DeliveryStatus } from '@svc/proto/partner/v1/partner_webhooks';
import { PartnerWebhookState_Status as WebhookStatus } from '@svc/proto/partner/v1/partner_webhooks';
import { PartnerDeliveryRow, PartnerWebhookRow } from '../../entities';
import { providerOrNone } from '../provider-or-none';
import { newDeliveryId } from '../webhooks/rules';
import type { PartnerEvent } from './mapping';

/** Standard Webhooks: payloads should stay under 20 KB. */
export const MAX_PAYLOAD_BYTES = 20_000;

/**
 * The exact body of a delivery: `{"type", "timestamp", "data"}` (Standard Webhooks). A message text that would take the
 * body over MAX_PAYLOAD_BYTES is cut to fit and `textTruncated: true` says so (docs/decisions/0241).
 */
export function payloadOf(event: PartnerEvent): string {
  const body = (data: PartnerEvent['data']) => JSON.stringify({ type: event.kind, timestamp: event.occurredAt, data });
  const whole = body(event.data);
  const original = event.data.text;
  if (Buffer.byteLength(whole) <= MAX_PAYLOAD_BYTES || typeof original !== 'string') return whole;
  const cut = (keep: number) => body({ ...event.data, text: original.slice(0, keep), textTruncated: true });
  // The longest prefix that fits (JSON escaping and UTF-8 make bytes and characters differ).
  let [fits, tooLong] = [0, original.length];
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (Buffer.byteLength(cut(middle)) <= MAX_PAYLOAD_BYTES) fits = middle;
    else tooLong = middle;
  }
  return cut(fits);
}

export interface FanoutDeps {
  /** The provider of a client org ('' when it is nobody's client). */
  providerOf(orgId: string): Promise<string>;
  /** Told when deliveries were committed (the sweeper sends them at once). */
  onCreated(): void;
  clock: () => Date;
}

/**
 * Turns partner events into deliveries (docs/partner-webhooks.md "Deliveries"): one per ENABLED webhook of the event's
 * provider subscribed to its kind, all events of a batch in one transaction. Idempotent: `(webhook_id, event_id)` is
 * unique and what exists is skipped, so a redelivered event creates nothing. A DISABLED webhook gets none (Svix sends
 * nothing to a disabled endpoint; deliveries already pending when it was disabled are HELD until it is enabled).
 */
export class Fanout {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deps: FanoutDeps,
  ) {}

  /** Answers how many deliveries were created. */
  async record(events: readonly PartnerEvent[]): Promise<number> {
    if (!events.length) return 0;
    const providerOf = new Map<string, string>();
    for (const orgId of new Set(events.map((event) => event.clientOrgId))) {
      providerOf.set(orgId, await providerOrNone(this.deps.providerOf, orgId));
    }
    const providers = [...new Set(providerOf.values())].filter(Boolean);
    if (!providers.length) return 0;
    const webhooks = await this.dataSource.manager.findBy(PartnerWebhookRow, {
      orgId: In(providers),
      status: WebhookStatus.ENABLED,
    });
    const at = this.deps.clock();
    const wanted: PartnerDeliveryRow[] = [];
    for (const event of events) {
      const provider = providerOf.get(event.clientOrgId);
      const body = payloadOf(event);
      for (const webhook of webhooks) {
        if (webhook.orgId !== provider || !webhook.events.includes(event.kind)) continue;
        wanted.push(
          Object.assign(new PartnerDeliveryRow(), {
            id: newDeliveryId(),
            orgId: webhook.orgId,
            webhookId: webhook.id,
            clientOrgId: event.clientOrgId,
            eventId: event.eventId,
            eventType: event.kind,
            contactId: event.contactId,
            payload: body,
            status: DeliveryStatus.PENDING,
            attemptCount: 0,
            nextAttemptAt: at,
            createdAt: at,
            deliveredAt: null,
            updatedAt: at,
          }),
        );
      }
    }
    if (!wanted.length) return 0;
    const created = await this.dataSource.transaction(async (manager) => {
      const existing = await manager.find(PartnerDeliveryRow, {
        select: { webhookId: true, eventId: true },
        // The unique (webhook_id, event_id) index answers it.
        where: {
          webhookId: In([...new Set(wanted.map((row) => row.webhookId))]),
          eventId: In([...new Set(wanted.map((row) => row.eventId))]),
        },
      });
      const seen = new Set(existing.map((row) => `${row.webhookId} ${row.eventId}`));
      const fresh = wanted.filter((row) => !seen.has(`${row.webhookId} ${row.eventId}`));
      if (fresh.length) await manager.insert(PartnerDeliveryRow, fresh);
      return fresh.length;
    });
    if (created) this.deps.onCreated();
    return created;
  }
}
