import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  InvalidArgument,
  enqueueEvents,
  now,
  requireOrg,
  type NewEvent,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { PrincipalKind } from '@svc/proto/common/v1';
import { DeliveryStatus, MessageDirection, type UpdateDeliveryStatusResult } from '@svc/proto/inbox/v1';
import { MAX_FAILURE_REASON_LENGTH, MessageRow, type ChatRow } from '../entities';
import { messageEvent } from './events';
import { requireId } from './lookups';
import { requireContactSide, requireReachable } from './visitor-access';
import { lockChat, recordVisitorEvent } from './visitor-log';

export const MAX_STATUS_IDS = 100;

/** Forward only: QUEUED → SENT → DELIVERED → READ; FAILED only from QUEUED or SENT; READ and FAILED are final. */
const RANK: Partial<Record<DeliveryStatus, number>> = {
  [DeliveryStatus.QUEUED]: 0,
  [DeliveryStatus.SENT]: 1,
  [DeliveryStatus.DELIVERED]: 2,
  [DeliveryStatus.READ]: 3,
};

export function mayMoveTo(from: DeliveryStatus, to: DeliveryStatus): boolean {
  const rank = RANK[from];
  if (rank === undefined) return false; // FAILED, NOT_APPLICABLE
  if (to === DeliveryStatus.FAILED) return rank <= 1;
  const target = RANK[to];
  return target !== undefined && target > rank;
}

/** What each caller may report (docs/decisions/0082): the visitor acknowledges and reads, it never sends or fails. */
function allowedStatuses(principal: Principal): DeliveryStatus[] {
  return principal.kind === PrincipalKind.VISITOR
    ? [DeliveryStatus.DELIVERED, DeliveryStatus.READ]
    : [DeliveryStatus.SENT, DeliveryStatus.DELIVERED, DeliveryStatus.READ, DeliveryStatus.FAILED];
}

/**
 * Moves the chat's outbound, non-internal messages among `candidates` to `status` where the forward-only rule
 * allows, each with its visitor event number and `message.status_changed`. The chat is locked by the caller.
 */
export async function advanceDeliveryStatus(
  manager: EntityManager,
  chat: ChatRow,
  candidates: MessageRow[],
  status: DeliveryStatus,
  failureReason: string | null,
  at: Date,
): Promise<MessageRow[]> {
  const moving = candidates
    .filter((m) => m.direction === MessageDirection.OUTBOUND && !m.internal && mayMoveTo(m.deliveryStatus, status))
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  if (!moving.length) return [];
  await manager.update(
    MessageRow,
    { orgId: chat.orgId, chatId: chat.id, id: In(moving.map((m) => m.id)) },
    { deliveryStatus: status, failureReason },
  );
  const events: NewEvent[] = [];
  for (const message of moving) {
    message.deliveryStatus = status;
    message.failureReason = failureReason;
    const visitorSeq = await recordVisitorEvent(manager, chat, 'message.status_changed', message.id, at);
    events.push(messageEvent('message.status_changed', message, chat, { visitorSeq }));
  }
  await enqueueEvents(manager, events, at);
  return moving;
}

/** InboxService.UpdateDeliveryStatus: a channel (SYSTEM) or the chat's own visitor reports delivery. */
export class DeliveryStatuses {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  async update(
    principal: Principal,
    request: { chatId: string; messageIds: string[]; status: DeliveryStatus; failureReason?: string | undefined },
  ): Promise<UpdateDeliveryStatusResult> {
    requireContactSide(principal);
    const orgId = requireOrg(principal);
    if (!allowedStatuses(principal).includes(request.status))
      throw new InvalidArgument(`status must be one of ${allowedStatuses(principal).join(', ')}`, { field: 'status' });
    const ids = [...new Set(request.messageIds)];
    if (!ids.length || ids.length > MAX_STATUS_IDS)
      throw new InvalidArgument(`messageIds must hold 1 to ${MAX_STATUS_IDS} ids`, { field: 'messageIds' });
    ids.forEach((id) => requireId(id, 'messageIds'));
    const failureReason = validFailureReason(request.status, request.failureReason);
    const changed = await this.dataSource.transaction(async (manager) => {
      const chat = requireReachable(principal, await lockChat(manager, orgId, request.chatId));
      const candidates = await manager.findBy(MessageRow, { orgId, chatId: chat.id, id: In(ids) });
      return advanceDeliveryStatus(manager, chat, candidates, request.status, failureReason, now());
    });
    if (changed.length) this.relay().nudge();
    return { changedMessageIds: changed.map((m) => m.id) };
  }
}

function validFailureReason(status: DeliveryStatus, reason: string | undefined): string | null {
  if (status !== DeliveryStatus.FAILED) {
    if (reason) throw new InvalidArgument('failureReason goes only with FAILED', { field: 'failureReason' });
    return null;
  }
  if (!reason?.trim() || reason.length > MAX_FAILURE_REASON_LENGTH)
    throw new InvalidArgument(`FAILED needs a failureReason of 1 to ${MAX_FAILURE_REASON_LENGTH} characters`, {
      field: 'failureReason',
    });
  return reason;
}
