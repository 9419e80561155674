import type { EntityManager } from 'typeorm';
import { FailedPrecondition, InvalidArgument } from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { MessageDirection } from '@svc/proto/inbox/v1';
import { CHAT_CHANNEL_TYPES, ChatRow, MessageRow, type ChatChannelType } from '../entities';

/**
 * The platforms that deliver a free-form business message only within some hours of the user's last message
 * (docs/decisions/0140): CHAT_APP_A (WhatsApp's 24-hour customer service window) and SOCIAL_APP_D (Messenger's
 * standard messaging window, 24 hours). Outside it only an approved template reaches the user (CHAT_APP_A:
 * sendChatAppATemplateMessage, SendMessage's SYSTEM-only `platform_template`). The channels adapters state the same
 * hours (`messagingWindowHours`); tests/e2e/channels-delivery.test.ts checks the two agree.
 */
export const MESSAGING_WINDOW_HOURS: Readonly<Partial<Record<ChatChannelType, number>>> = {
  [ChannelType.CHAT_APP_A]: 24,
  [ChannelType.SOCIAL_APP_D]: 24,
};

/**
 * The `reason` a refusal carries (GraphQL `extensions.reason`, gRPC metadata `x-svc-error-reason`): the window is
 * closed, send an approved template instead. Documented in docs/api.md ("Error reasons") and decision 0140.
 */
export const MESSAGING_WINDOW_CLOSED = 'MESSAGING_WINDOW_CLOSED';

/** OpenChat's `channel_type`: a ChannelType name; empty is WEB (widget-api and callers before issue 16). */
export function chatChannelType(value: string | undefined): ChatChannelType {
  if (!value) return ChannelType.WEB;
  const type = CHAT_CHANNEL_TYPES.find((t) => t === value);
  if (!type)
    throw new InvalidArgument(`channelType must be one of ${CHAT_CHANNEL_TYPES.join(', ')}`, { field: 'channelType' });
  return type;
}

/**
 * Refuses a free-form message to the chat's contact when its platform has a window and the contact's last message on
 * that channel (any of its threads there) is older than the window, or there is none. Notes and templates pass.
 */
export async function requireOpenWindow(manager: EntityManager, chat: ChatRow, at: Date): Promise<void> {
  const hours = MESSAGING_WINDOW_HOURS[chat.channelType];
  if (hours === undefined) return;
  const last = await lastInboundAt(manager, chat);
  if (last && at.getTime() - last.getTime() < hours * 3_600_000) return;
  throw new FailedPrecondition(
    `the contact has not written in the last ${hours} hours: outside the platform's messaging window only an approved ` +
      'template reaches them (sendChatAppATemplateMessage)',
    { reason: MESSAGING_WINDOW_CLOSED },
  );
}

/** When the contact last wrote on the chat's channel: the platform's window runs from it. */
export async function lastInboundAt(manager: EntityManager, chat: ChatRow): Promise<Date | null> {
  const latest = await manager
    .getRepository(MessageRow)
    .createQueryBuilder('m')
    .innerJoin(ChatRow, 'c', 'c.id = m.chatId AND c.orgId = m.orgId')
    .where('c.orgId = :orgId AND c.channelId = :channelId AND c.contactId = :contactId', {
      orgId: chat.orgId,
      channelId: chat.channelId,
      contactId: chat.contactId,
    })
    .andWhere('m.direction = :inbound', { inbound: MessageDirection.INBOUND })
    .orderBy('m.createdAt', 'DESC')
    .limit(1)
    .getOne();
  return latest?.createdAt ?? null;
}
