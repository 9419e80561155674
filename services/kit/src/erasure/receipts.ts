import type { Logger } from 'pino';
import type { EventBus, Subscription } from '../bus/bus';
import type { ErasureKindCount } from './contract';
import { subscribeErasureTopic, type ErasureEventSource } from './consumer';

/** One participant's confirmation of a saga's erasure, as its coordinator records it. */
export interface ParticipantConfirmation {
  orgId: string;
  erasureId: string;
  /** The confirming participant. */
  service: string;
  counts: readonly ErasureKindCount[];
  at: Date;
}

/** A saga's coordinator: where its participants' confirmations are recorded. */
export interface ErasureReceiptLedger {
  /** Records a confirmation (the first one of each participant is kept); false when nothing was recorded. */
  confirm(confirmation: ParticipantConfirmation): Promise<boolean>;
}

/**
 * Records every participant's confirmation (`source.type`) on the coordinator's ledger, from the beginning: a
 * confirmation sent while the coordinator was down is recorded when it is back. A confirmation the ledger does not
 * record (no known erasure or no participant) is logged with `ignored` and skipped.
 */
export function subscribeErasureReceipts(
  bus: EventBus,
  topicPrefix: string,
  source: ErasureEventSource,
  ledger: ErasureReceiptLedger,
  logger: Logger,
  ignored: string,
): Promise<Subscription> {
  return subscribeErasureTopic(bus, topicPrefix, source, async (envelope, event) => {
    const confirmation = {
      orgId: envelope.orgId,
      erasureId: event.erasureId,
      service: event.service,
      counts: event.counts,
      at: new Date(envelope.occurredAt || Date.now()),
    };
    if (!(await ledger.confirm(confirmation)))
      logger.warn({ orgId: envelope.orgId, erasureId: event.erasureId, service: event.service }, ignored);
  });
}
