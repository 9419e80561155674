import type { DataSource } from 'typeorm';
import {
  enqueueEvents,
  isId,
  now,
  type DeliveredRecord,
  type EventBus,
  type Logger,
  type NewEvent,
  type OutboxRelay,
  type Subscription,
} from '@svc/kit';
import { Envelope } from '@svc/proto/events/v1';
import { ChatRow } from '../entities';
import { chatEvent } from './events';

/** Identity's `member.removed` (docs/decisions/0034-assignees-and-contact-conflicts.md). */
export const MEMBERS_TOPIC = 'svc.identity.members.v1';
/** One group shared by every inbox replica: each removal is handled by one of them. */
export const MEMBER_REMOVAL_GROUP = 'inbox.member-removal';
/** Chats unassigned per transaction, so a member with a huge backlog never holds one long transaction. */
const BATCH = 200;

/**
 * Unassigns the chats (conversation threads) of a member who was removed from the org, open or closed, exactly as
 * `unassignChat` would: `assigneeId` cleared, `updatedAt` bumped, one `chat.unassigned` per chat, in the transaction
 * that changes it. Idempotent without bookkeeping: member ids are never reused and a removed member can no longer be
 * assigned, so a redelivered event finds nothing left to change.
 */
export class MemberRemoval {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  /** The number of chats unassigned. */
  async unassignAll(orgId: string, memberId: string): Promise<number> {
    if (!isId(orgId) || !isId(memberId)) return 0;
    let total = 0;
    for (;;) {
      const { found, changed } = await this.dataSource.transaction(async (manager) => {
        const rows = await manager.find(ChatRow, {
          where: { orgId, assigneeId: memberId },
          order: { createdAt: 'ASC', id: 'ASC' },
          take: BATCH,
        });
        const at = now();
        const events: NewEvent[] = [];
        for (const row of rows) {
          // Guarded on the assignee: a chat reassigned meanwhile is left as it is, and emits nothing.
          const result = await manager.update(
            ChatRow,
            { id: row.id, orgId, assigneeId: memberId },
            { assigneeId: null, updatedAt: at },
          );
          if (!result.affected) continue;
          row.assigneeId = null;
          row.updatedAt = at;
          events.push(chatEvent('chat.unassigned', row));
        }
        if (events.length) await enqueueEvents(manager, events, at);
        return { found: rows.length, changed: events.length };
      });
      total += changed;
      if (changed) this.relay().nudge();
      // A full batch of which none changed means concurrent writers keep the rows: stop rather than spin.
      if (found < BATCH || changed === 0) return total;
    }
  }
}

/** Consumes identity's `svc.identity.members.v1` and unassigns each removed member's chats. */
export function subscribeMemberRemoval(
  bus: EventBus,
  removal: MemberRemoval,
  topicPrefix: string,
  logger: Logger,
): Promise<Subscription> {
  return bus.subscribe({
    // Prefixed like the topics: installations (and test runs) sharing a cluster must not share consumer groups.
    groupId: topicPrefix + MEMBER_REMOVAL_GROUP,
    topics: [topicPrefix + MEMBERS_TOPIC],
    fromBeginning: true,
    handle: async (record: DeliveredRecord) => {
      const envelope = Envelope.decode(record.value);
      if (envelope.type !== 'member.removed' || !envelope.member) return;
      const unassigned = await removal.unassignAll(envelope.orgId, envelope.member.memberId);
      if (unassigned) logger.info({ memberId: envelope.member.memberId, unassigned }, 'removed member unassigned');
    },
  });
}
