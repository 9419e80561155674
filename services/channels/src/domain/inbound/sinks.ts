import type { ConnectedChannel, InboundStatus, InboundTemplateStatus, InboundWatermark } from '../../platforms/adapter';

/**
 * Where the inbound consumer hands a platform's status callbacks: the outbound side (`delivery/**`) maps a platform
 * message id to our message and reports through inbox `UpdateDeliveryStatus` (the inbox's forward-only machine,
 * decision 0082, is the one rule). A transient failure throws: the consumer retries the whole event (idempotent).
 */
export interface DeliveryStatusSink {
  /** One message's SENT / DELIVERED / READ / FAILED callback. */
  applyStatus(channel: ConnectedChannel, status: InboundStatus): Promise<void>;
  /** SOCIAL_APP_D's delivery/read watermark: every message sent to the user up to `upTo` moved on. */
  applyWatermark(channel: ConnectedChannel, watermark: InboundWatermark): Promise<void>;
}

/** Where the inbound consumer hands CHAT_APP_A's template status callbacks (`domain/templates/**`). */
export interface TemplateStatusSink {
  applyTemplateStatus(channel: ConnectedChannel, status: InboundTemplateStatus): Promise<void>;
}
