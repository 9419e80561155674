import { LRUCache } from 'lru-cache';
import { In, type DataSource } from 'typeorm';
import { consumeEvents, now, type DeliveredRecord, type EventBus, type Logger, type Subscription } from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { MessageDirection } from '@svc/proto/inbox/v1';
import { OutboundDeliveryRow, PlatformChannelRow } from '../entities';

/** The inbox's message events (services/inbox/src/domain/events.ts): `message.created` names the chat's channel. */
export const INBOX_MESSAGES_TOPIC = 'svc.inbox.messages.v1';
/** One group shared by every channels replica: each message is queued by one of them (and only once anyway). */
export const DELIVERY_CONSUMER_GROUP = 'channels.delivery';

/**
 * Queues every outbound, non-internal message created in a chat of a platform channel: one `outbound_deliveries` row
 * per message, keyed by the message id and inserted with "insert or ignore", so a redelivered event (Kafka's
 * at-least-once, a consumer restarted before committing) changes nothing. Web chats' messages are not ours to send.
 * The sender picks the rows up (`wake`).
 */
export class DeliveryConsumer {
  /**
   * Whether a channel id names a platform channel: every agent message of every web chat passes here, so the answer
   * is kept. It never changes for an id (a channel's type is fixed at creation, and no message names a channel before
   * its row is committed), so nothing evicts it; a disconnected channel's messages are the sender's to refuse.
   */
  private readonly isPlatformChannel = new LRUCache<string, boolean>({ max: 50_000 });

  constructor(
    private readonly dataSource: DataSource,
    private readonly wake: () => void,
    private readonly logger: Logger,
  ) {}

  subscribe(bus: EventBus, topicPrefix: string): Promise<Subscription> {
    const source = { groupId: topicPrefix + DELIVERY_CONSUMER_GROUP, topic: topicPrefix + INBOX_MESSAGES_TOPIC };
    const handleBatch = async (records: DeliveredRecord[]) => {
      const envelopes = records.map((record) => Envelope.decode(record.value));
      await consumeEvents(envelopes, source, () => this.queue(envelopes));
    };
    return bus.subscribe({
      groupId: source.groupId,
      topics: [source.topic],
      fromBeginning: true,
      handle: (record) => handleBatch([record]),
      handleBatch,
    });
  }

  /** Queues the batch's outbound messages of platform chats; answers how many rows were new or already there. */
  async queue(envelopes: Envelope[]): Promise<number> {
    const outbound = envelopes.filter(
      (e) =>
        e.type === 'message.created' &&
        e.message &&
        e.message.direction === MessageDirection.OUTBOUND &&
        !e.message.internal &&
        !e.message.deleted,
    );
    if (!outbound.length) return 0;
    const channelIds = [...new Set(outbound.map((e) => e.message?.channelId ?? ''))];
    const unknown = channelIds.filter((id) => !this.isPlatformChannel.has(id));
    if (unknown.length) {
      const found = new Set(
        (
          await this.dataSource
            .getRepository(PlatformChannelRow)
            .find({ select: { id: true }, where: { id: In(unknown) } })
        ).map((row) => row.id),
      );
      for (const id of unknown) this.isPlatformChannel.set(id, found.has(id));
    }
    const platform = new Set(channelIds.filter((id) => this.isPlatformChannel.get(id)));
    const at = now();
    const rows = outbound.flatMap((envelope) => {
      const message = envelope.message;
      if (!message || !platform.has(message.channelId)) return [];
      return [
        this.dataSource.getRepository(OutboundDeliveryRow).create({
          id: message.messageId,
          orgId: envelope.orgId,
          channelId: message.channelId,
          chatId: message.chatId,
          contactId: message.contactId,
          state: 'PENDING',
          attempts: 0,
          round: 1,
          queuedAt: at,
          nextAttemptAt: at,
          leaseUntil: null,
          attemptStartedAt: null,
          recipient: null,
          platformMessageIds: null,
          sentAt: null,
          failureKind: null,
          failureCode: null,
          failureMessage: null,
          inboxReported: true,
          createdAt: at,
          updatedAt: at,
        }),
      ];
    });
    if (!rows.length) return 0;
    await this.dataSource.createQueryBuilder().insert().into(OutboundDeliveryRow).values(rows).orIgnore().execute();
    this.logger.debug({ messages: rows.length }, 'outbound messages queued for delivery');
    this.wake();
    return rows.length;
  }
}
