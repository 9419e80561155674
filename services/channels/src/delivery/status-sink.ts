import { Between, type DataSource } from 'typeorm';
import { NotFound, entitySql, now, type Logger } from '@svc/kit';
import { DeliveryStatus } from '@svc/proto/inbox/v1';
import { OutboundDeliveryRow, OutboundPlatformMessageRow } from '../entities';
import type { DeliveryStatusSink } from '../domain/inbound/sinks';
import type { ConnectedChannel, InboundStatus, InboundWatermark, PlatformDeliveryStatus } from '../platforms/adapter';
import type { DeliveryBackends } from './backends';
import { failureReason } from './reports';

const INBOX_STATUS: Record<PlatformDeliveryStatus, DeliveryStatus> = {
  SENT: DeliveryStatus.SENT,
  DELIVERED: DeliveryStatus.DELIVERED,
  READ: DeliveryStatus.READ,
  FAILED: DeliveryStatus.FAILED,
};

/** A watermark moves the messages sent to the user within this long before it (older ones were settled long ago). */
const WATERMARK_REACH_MS = 7 * 24 * 3_600_000;
const MAX_IDS_PER_UPDATE = 100;

/**
 * The platforms' status callbacks, applied to our messages (decision 0141): a platform message id names the message
 * it was one part of (`outbound_platform_messages`, written when the send was answered), and the inbox's
 * UpdateDeliveryStatus decides what moves — its forward-only machine (decision 0082) is the one rule, so a late `sent`
 * after `read`, or anything after FAILED, changes nothing. A callback about an id we never sent (a message sent from
 * the platform's own app, or one whose answer we lost to a crash: in doubt) is ignored. A watermark moves every message
 * sent to that user on the channel up to its time. Contacts or the inbox being unreachable throws: the inbound
 * consumer retries the event.
 */
export class DeliveryStatusUpdates implements DeliveryStatusSink {
  constructor(
    private readonly dataSource: DataSource,
    private readonly backends: DeliveryBackends,
    private readonly logger: Logger,
  ) {}

  async applyStatus(channel: ConnectedChannel, status: InboundStatus): Promise<void> {
    const sent = await this.dataSource.getRepository(OutboundPlatformMessageRow).findOneBy({
      channelId: channel.channelId,
      platformMessageId: status.platformMessageId,
    });
    if (!sent) {
      this.logger.debug({ channelId: channel.channelId, status: status.status }, 'status of a message we did not send');
      return;
    }
    const failure =
      status.status === 'FAILED'
        ? (status.failure ?? { code: 'failed', message: 'the platform failed it' })
        : undefined;
    if (failure)
      // What retryFailedMessage reads: the platform's own reason, a permanent failure after it accepted the message.
      await entitySql(this.dataSource, OutboundDeliveryRow).update(
        this.dataSource.manager,
        {
          state: 'FAILED',
          failureKind: 'PERMANENT',
          failureCode: failure.code,
          failureMessage: failure.message,
          updatedAt: now(),
        },
        { id: sent.messageId, state: 'SENT' },
      );
    await this.update(
      sent.orgId,
      sent.chatId,
      [sent.messageId],
      INBOX_STATUS[status.status],
      failure && failureReason(failure.code, failure.message),
    );
  }

  async applyWatermark(channel: ConnectedChannel, watermark: InboundWatermark): Promise<void> {
    const rows = await this.dataSource.getRepository(OutboundDeliveryRow).find({
      select: { id: true, orgId: true, chatId: true },
      where: {
        channelId: channel.channelId,
        recipient: watermark.platformUserId,
        state: 'SENT',
        sentAt: Between(new Date(watermark.upTo.getTime() - WATERMARK_REACH_MS), watermark.upTo),
      },
      order: { sentAt: 'ASC' },
    });
    const byChat = new Map<string, { orgId: string; ids: string[] }>();
    for (const row of rows) {
      const chat = byChat.get(row.chatId) ?? { orgId: row.orgId, ids: [] };
      chat.ids.push(row.id);
      byChat.set(row.chatId, chat);
    }
    for (const [chatId, { orgId, ids }] of byChat)
      for (let start = 0; start < ids.length; start += MAX_IDS_PER_UPDATE)
        await this.update(orgId, chatId, ids.slice(start, start + MAX_IDS_PER_UPDATE), INBOX_STATUS[watermark.status]);
  }

  private async update(orgId: string, chatId: string, ids: string[], status: DeliveryStatus, reason?: string) {
    try {
      await this.backends.updateDeliveryStatus(orgId, chatId, ids, status, reason);
    } catch (error) {
      // The chat was deleted meanwhile: nothing left to move.
      if (!(error instanceof NotFound)) throw error;
    }
  }
}
