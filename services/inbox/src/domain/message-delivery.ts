import type { DataSource } from 'typeorm';
import {
  FailedPrecondition,
  enqueueEvents,
  now,
  requireOrg,
  requireSystem,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { DeliveryStatus, MessageDirection, type Message, type MessageForDelivery } from '@svc/proto/inbox/v1';
import { ChatRow, MessageRow } from '../entities';
import { messageEvent } from './events';
import { findMessage } from './lookups';
import type { MessageReader } from './message-details';
import { requireOpenWindow } from './messaging-window';
import { lockChat, recordVisitorEvent } from './visitor-log';

/**
 * The words a refused retry carries in `reason` (docs/decisions/0142); channels adds its own (the channel's state,
 * the last failure's kind).
 */
export const RETRY_REFUSAL = {
  notOutbound: 'NOT_OUTBOUND',
  internalNote: 'INTERNAL_NOTE',
  deleted: 'MESSAGE_DELETED',
  notPlatformChat: 'NOT_A_PLATFORM_CHAT',
  notFailed: 'NOT_FAILED',
} as const;

/** The two SYSTEM RPCs of channels' delivery (issue 16): read a message to send it, and requeue a failed one. */
export class MessageDelivery {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
    private readonly reader: MessageReader,
  ) {}

  async forDelivery(principal: Principal, messageId: string): Promise<MessageForDelivery> {
    requireSystem(principal);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const row = await findMessage(manager, orgId, messageId, true);
    const chat = await manager.findOneByOrFail(ChatRow, { orgId, id: row.chatId });
    return {
      message: await this.reader.viewOf(manager, row),
      channelId: chat.channelId,
      channelType: chat.channelType,
      contactId: chat.contactId,
    };
  }

  /**
   * FAILED → QUEUED for a new attempt; QUEUED answers as it is (a retry whose first call was cut short). `dryRun`
   * checks the same and changes nothing.
   */
  async requeue(principal: Principal, messageId: string, platformTemplate: boolean, dryRun = false): Promise<Message> {
    requireSystem(principal);
    const orgId = requireOrg(principal);
    const { row, moved } = await this.dataSource.transaction(async (manager) => {
      const found = await findMessage(manager, orgId, messageId, true);
      const chat = await lockChat(manager, orgId, found.chatId);
      const row = await manager.findOneByOrFail(MessageRow, { orgId, id: found.id });
      requireRetryable(row, chat);
      if (row.deliveryStatus === DeliveryStatus.QUEUED) return { row, moved: false };
      const at = now();
      if (!platformTemplate) await requireOpenWindow(manager, chat, at);
      if (dryRun) return { row, moved: false };
      await manager.update(
        MessageRow,
        { orgId, id: row.id },
        { deliveryStatus: DeliveryStatus.QUEUED, failureReason: null },
      );
      row.deliveryStatus = DeliveryStatus.QUEUED;
      row.failureReason = null;
      const visitorSeq = await recordVisitorEvent(manager, chat, 'message.status_changed', row.id, at);
      await enqueueEvents(manager, [messageEvent('message.status_changed', row, chat, { visitorSeq })], at);
      return { row, moved: true };
    });
    if (moved) this.relay().nudge();
    return this.reader.viewOf(this.dataSource.manager, row);
  }
}

function requireRetryable(row: MessageRow, chat: ChatRow): void {
  const refuse = (reason: string, message: string) => {
    throw new FailedPrecondition(message, { reason, field: 'messageId' });
  };
  if (row.internal) refuse(RETRY_REFUSAL.internalNote, 'an internal note is never delivered');
  if (row.direction !== MessageDirection.OUTBOUND) refuse(RETRY_REFUSAL.notOutbound, 'only sent messages are retried');
  if (row.deletedAt) refuse(RETRY_REFUSAL.deleted, 'the message is deleted');
  if (chat.channelType === ChannelType.WEB)
    refuse(RETRY_REFUSAL.notPlatformChat, "a web chat's messages are not sent through a platform");
  if (row.deliveryStatus !== DeliveryStatus.FAILED && row.deliveryStatus !== DeliveryStatus.QUEUED)
    refuse(RETRY_REFUSAL.notFailed, `only a FAILED message is retried; this one is ${row.deliveryStatus}`);
}
