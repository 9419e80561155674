import type { DataSource } from 'typeorm';
import { requireOrg, requireScope, type Principal } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { AuthorType, ChatStatus, MessageDirection, type InboxCounts } from '@svc/proto/inbox/v1';
import { ChatRow, MessageRow, ReadStateRow } from '../entities';
import { authorOf, readerOf } from './actor';

type Count = string | number | null;

/**
 * The numbers an inbox shows on its tabs: chats by status, unassigned and mine, unread for the caller, open per
 * operator. Three grouped queries over the org's chats; notes never count (unread is inbound messages only, and a note
 * is never inbound — filtered explicitly anyway).
 */
export class InboxCountsReader {
  constructor(private readonly dataSource: DataSource) {}

  async counts(principal: Principal): Promise<InboxCounts> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const author = authorOf(principal);
    const me = author.authorType === AuthorType.MEMBER ? author.authorId : '';
    const chats = () =>
      this.dataSource.getRepository(ChatRow).createQueryBuilder('c').where('c.orgId = :orgId', { orgId });
    const totals = await chats()
      .select('COUNT(*)', 'total')
      .addSelect('SUM(CASE WHEN c.status = :open THEN 1 ELSE 0 END)', 'open')
      .addSelect('SUM(CASE WHEN c.status = :open AND c.assigneeId IS NULL THEN 1 ELSE 0 END)', 'unassigned')
      .addSelect('SUM(CASE WHEN c.status = :open AND c.assigneeId = :me THEN 1 ELSE 0 END)', 'mine')
      .setParameters({ open: ChatStatus.OPEN, me })
      .getRawOne<{ total: Count; open: Count; unassigned: Count; mine: Count }>();
    const unread = await chats()
      .select('COUNT(DISTINCT c.id)', 'unread')
      .addSelect('COUNT(DISTINCT CASE WHEN c.status = :open THEN c.id END)', 'openUnread')
      .innerJoin(
        MessageRow,
        'm',
        'm.orgId = c.orgId AND m.chatId = c.id AND m.direction = :inbound AND m.internal = :internal AND m.deletedAt IS NULL',
        { inbound: MessageDirection.INBOUND, internal: false },
      )
      .leftJoin(ReadStateRow, 'r', 'r.orgId = c.orgId AND r.chatId = c.id AND r.readerId = :reader', {
        reader: readerOf(principal) ?? '',
      })
      .andWhere('(r.id IS NULL OR m.createdAt > r.readUpTo OR (m.createdAt = r.readUpTo AND m.id > r.readUpToId))')
      .setParameter('open', ChatStatus.OPEN)
      .getRawOne<{ unread: Count; openUnread: Count }>();
    const byAssignee = await chats()
      .select('c.assigneeId', 'assigneeId')
      .addSelect('COUNT(*)', 'open')
      .andWhere('c.status = :open AND c.assigneeId IS NOT NULL', { open: ChatStatus.OPEN })
      .groupBy('c.assigneeId')
      .getRawMany<{ assigneeId: string; open: Count }>();
    const open = Number(totals?.open ?? 0);
    const total = Number(totals?.total ?? 0);
    return {
      total,
      open,
      closed: total - open,
      unassigned: Number(totals?.unassigned ?? 0),
      mine: Number(totals?.mine ?? 0),
      unread: Number(unread?.unread ?? 0),
      openUnread: Number(unread?.openUnread ?? 0),
      byAssignee: byAssignee
        .map((a) => ({ assigneeId: a.assigneeId, open: Number(a.open ?? 0) }))
        .sort((a, b) => b.open - a.open || a.assigneeId.localeCompare(b.assigneeId)),
    };
  }
}
