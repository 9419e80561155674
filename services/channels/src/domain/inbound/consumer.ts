import type { DataSource } from 'typeorm';
import {
  consumeEvents,
  isDuplicateKeyError,
  type DeliveredRecord,
  type EventBus,
  type Logger,
  type Subscription,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { PlatformInboundEventRow } from '../../entities';
import type { InboundEvent } from '../../platforms/adapter';
import type { PlatformAdapters } from '../../platforms/registry';
import { INBOUND_TOPIC } from '../events';
import type { PlatformChannels } from '../platform-channels';
import type { InboundMessages } from './messages';
import type { DeliveryStatusSink, TemplateStatusSink } from './sinks';

/** One group shared by every channels replica: each accepted webhook is applied by one of them. */
export const INBOUND_CONSUMER_GROUP = 'channels.inbound';

/**
 * Contacts or the inbox being down is worth waiting out longer than the bus's default five attempts: ten, backing off
 * from BUS_RETRY_BACKOFF_MS up to 30 s (about 80 s in all at the default), then the record is dead-lettered
 * (`<topic>.dlq`, replayed with the dead-letter tool).
 */
export const INBOUND_RETRY = { attempts: 10, maxBackoffMs: 30_000 };

export interface InboundSinks {
  deliveryStatus: DeliveryStatusSink;
  templateStatus: TemplateStatusSink;
}

/**
 * Applies verified platform webhooks (decision 0136): the channel's adapter parses the body; messages are recorded in
 * the inbox (InboundMessages), statuses and watermarks go to the delivery side, template statuses to the templates.
 * Idempotent on the envelope id (`platform_inbound_events`) and, per message, on the platform's message id. Any
 * failure throws: the bus retries the record and dead-letters it after INBOUND_RETRY, so a body the adapter cannot
 * parse is kept in the dead-letter topic, never dropped.
 */
export class InboundConsumer {
  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: PlatformChannels,
    private readonly adapters: PlatformAdapters,
    private readonly messages: InboundMessages,
    private readonly sinks: () => InboundSinks,
    private readonly logger: Logger,
  ) {}

  subscribe(bus: EventBus, topicPrefix: string): Promise<Subscription> {
    const source = { groupId: topicPrefix + INBOUND_CONSUMER_GROUP, topic: topicPrefix + INBOUND_TOPIC };
    return bus.subscribe({
      groupId: source.groupId,
      topics: [source.topic],
      fromBeginning: true,
      retry: INBOUND_RETRY,
      handle: async (record: DeliveredRecord) => {
        const envelope = Envelope.decode(record.value);
        await consumeEvents([envelope], source, () => this.apply(envelope));
      },
    });
  }

  async apply(envelope: Envelope): Promise<void> {
    const webhook = envelope.platformWebhook;
    if (envelope.type !== 'platform_webhook.received' || !webhook) return;
    const done = this.dataSource.getRepository(PlatformInboundEventRow);
    if (await done.existsBy({ eventId: envelope.id })) return;
    const loaded = await this.channels.load(webhook.channelId);
    if (!loaded) throw new Error(`inbound webhook for channel ${webhook.channelId}, which is not a platform channel`);
    const { channel } = loaded;
    const adapter = this.adapters.get(channel.type);
    if (!adapter) throw new Error(`no adapter for ${channel.type}`);
    const events = adapter.parse(channel, Buffer.from(webhook.body));
    let recorded = 0;
    for (const event of events) {
      if (event.kind === 'message') recorded += (await this.messages.record(adapter, channel, event)) ? 1 : 0;
      else await this.applyStatus(channel, event);
    }
    await done.insert({ eventId: envelope.id, processedAt: new Date() }).catch((error: unknown) => {
      // Another replica finished the same envelope first: the work is done either way.
      if (!isDuplicateKeyError(error)) throw error;
    });
    this.logger.debug({ channelId: channel.channelId, events: events.length, recorded }, 'inbound webhook applied');
  }

  private async applyStatus(
    channel: Parameters<DeliveryStatusSink['applyStatus']>[0],
    event: Exclude<InboundEvent, { kind: 'message' }>,
  ): Promise<void> {
    const sinks = this.sinks();
    switch (event.kind) {
      case 'status':
        return sinks.deliveryStatus.applyStatus(channel, event);
      case 'watermark':
        return sinks.deliveryStatus.applyWatermark(channel, event);
      case 'template_status':
        return sinks.templateStatus.applyTemplateStatus(channel, event);
    }
  }
}
