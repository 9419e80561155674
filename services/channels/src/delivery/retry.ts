import type { DataSource } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  NotFound,
  entitySql,
  hasScope,
  now,
  requireOrg,
  requireScope,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ChannelStatus } from '@svc/proto/channels/v1';
import type { Message } from '@svc/proto/inbox/v1';
import { OutboundDeliveryRow, type FailureKind } from '../entities';
import type { PlatformChannels } from '../domain/platform-channels';
import type { DeliveryBackends } from './backends';
import { templatePayloadOf } from '../domain/templates/template-sends';

/** The `reason` words of refusals decided here (decision 0142); the inbox's are in its message-delivery.ts. */
export const RETRY_REFUSAL = {
  noDelivery: 'NO_DELIVERY',
  notFailed: 'NOT_FAILED',
  disconnected: 'CHANNEL_DISCONNECTED',
  paused: 'CHANNEL_PAUSED',
  needsReauthorization: 'CHANNEL_NEEDS_REAUTHORIZATION',
  permanent: 'PERMANENT_FAILURE',
} as const;

/** Failures a new attempt can overcome (decision 0142): retries spent, an attempt in doubt, a window since reopened. */
const RETRYABLE: readonly FailureKind[] = ['EXHAUSTED', 'IN_DOUBT', 'WINDOW_CLOSED'];

const ID = /^[0-9a-f]{24}$/;

/**
 * `retryFailedMessage` (MESSAGES_SEND, decision 0142): a FAILED outbound message of a platform chat gets a new attempt
 * — the same message (same id, QUEUED again in the inbox), sent by the sender as any queued message, never a copy — or
 * a refusal saying why it cannot succeed. The inbox checks the message (and the messaging window) first, dry; then
 * the channel and the last failure here; then the inbox requeues and the delivery starts a new round.
 */
export class FailedMessageRetries {
  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: PlatformChannels,
    private readonly backends: DeliveryBackends,
    private readonly wake: () => void,
  ) {}

  async retry(principal: Principal, messageId: string): Promise<Message> {
    requireScope(principal, ApiScope.MESSAGES_SEND);
    const orgId = requireOrg(principal);
    if (!ID.test(messageId)) throw new InvalidArgument('messageId: not an id', { field: 'messageId' });
    const { message } = await this.backends.messageForDelivery(orgId, messageId);
    // A note is not even there for a caller who may not read notes.
    if (!message || (message.internal && !hasScope(principal, ApiScope.NOTES_WRITE)))
      throw new NotFound('message not found', { field: 'messageId' });
    const platformTemplate =
      (await templatePayloadOf(this.dataSource, { messageId, chatId: message.chatId })).kind === 'template';
    await this.backends.requeueFailedMessage(orgId, messageId, platformTemplate, true);
    const repository = this.dataSource.getRepository(OutboundDeliveryRow);
    const delivery = await repository.findOneBy({ orgId, id: messageId });
    if (!delivery) refuse(RETRY_REFUSAL.noDelivery, 'the message was never queued for delivery on its channel');
    if (delivery.state !== 'FAILED')
      refuse(RETRY_REFUSAL.notFailed, `only a FAILED message is retried; its delivery is ${delivery.state}`);
    const channel = await this.channels.load(delivery.channelId);
    if (!channel || channel.disconnected) refuse(RETRY_REFUSAL.disconnected, 'the channel is disconnected');
    if (channel.status === ChannelStatus.PAUSED)
      refuse(RETRY_REFUSAL.paused, 'the channel is paused: resume it first (resumeChannel)');
    if (channel.status === ChannelStatus.NEEDS_REAUTHORIZATION)
      refuse(RETRY_REFUSAL.needsReauthorization, 'the platform refused the channel’s credentials: connect it again');
    if (!delivery.failureKind || !RETRYABLE.includes(delivery.failureKind))
      refuse(
        RETRY_REFUSAL.permanent,
        `the platform refused this message for good (${delivery.failureMessage ?? 'no reason given'}, ` +
          `${delivery.failureCode ?? 'no code'}): sending it again would fail the same way`,
      );
    const requeued = await this.backends.requeueFailedMessage(orgId, messageId, platformTemplate, false);
    const at = now();
    await entitySql(this.dataSource, OutboundDeliveryRow).update(
      this.dataSource.manager,
      {
        state: 'PENDING',
        round: delivery.round + 1,
        attempts: 0,
        queuedAt: at,
        nextAttemptAt: at,
        failureKind: null,
        failureCode: null,
        failureMessage: null,
        inboxReported: true,
        updatedAt: at,
      },
      { id: delivery.id, state: 'FAILED', round: delivery.round },
    );
    this.wake();
    return requeued;
  }
}

function refuse(reason: string, message: string): never {
  throw new FailedPrecondition(message, { reason, field: 'messageId' });
}
