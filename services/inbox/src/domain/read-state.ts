import type { EntityManager } from 'typeorm';
import { isDuplicateKeyError, newId, now } from '@svc/kit';
import { MessageDirection } from '@svc/proto/inbox/v1';
import { MessageRow, ReadStateRow } from '../entities';

/**
 * Unread = inbound, visible, not deleted messages after the reader's watermark (all of them when the reader has
 * never read the chat). One grouped query for a whole page of chats.
 */
export async function unreadCounts(
  manager: EntityManager,
  orgId: string,
  chatIds: string[],
  readerId: string | undefined,
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (!chatIds.length) return counts;
  const rows = await manager
    .getRepository(MessageRow)
    .createQueryBuilder('m')
    .select('m.chatId', 'chatId')
    .addSelect('COUNT(*)', 'unread')
    .leftJoin(ReadStateRow, 'r', 'r.orgId = m.orgId AND r.chatId = m.chatId AND r.readerId = :reader', {
      reader: readerId ?? '',
    })
    .where('m.orgId = :orgId AND m.chatId IN (:...chatIds)', { orgId, chatIds })
    .andWhere('m.direction = :inbound AND m.internal = :internal AND m.deletedAt IS NULL', {
      inbound: MessageDirection.INBOUND,
      internal: false,
    })
    .andWhere('(r.id IS NULL OR m.createdAt > r.readUpTo OR (m.createdAt = r.readUpTo AND m.id > r.readUpToId))')
    .groupBy('m.chatId')
    .getRawMany<{ chatId: string; unread: string | number }>();
  for (const row of rows) counts.set(row.chatId, Number(row.unread));
  return counts;
}

/** Moves the reader's watermark forward to `upTo` (never back); returns whether it moved. */
export async function advanceReadState(
  manager: EntityManager,
  orgId: string,
  chatId: string,
  readerId: string,
  upTo: { at: Date; id: string },
): Promise<boolean> {
  const existing = await manager.findOneBy(ReadStateRow, { orgId, chatId, readerId });
  const at = now();
  if (existing) {
    const ahead =
      upTo.at.getTime() > existing.readUpTo.getTime() ||
      (upTo.at.getTime() === existing.readUpTo.getTime() && upTo.id > existing.readUpToId);
    if (!ahead) return false;
    await manager.update(ReadStateRow, { id: existing.id }, { readUpTo: upTo.at, readUpToId: upTo.id, updatedAt: at });
    return true;
  }
  try {
    await manager.insert(ReadStateRow, {
      id: newId(at),
      orgId,
      chatId,
      readerId,
      readUpTo: upTo.at,
      readUpToId: upTo.id,
      updatedAt: at,
    });
  } catch (error) {
    // A concurrent first read of the same chat by the same reader: the other insert won; move it instead.
    if (!isDuplicateKeyError(error)) throw error;
    return advanceReadState(manager, orgId, chatId, readerId, upTo);
  }
  return true;
}

/** The newest message of a chat: what "read all" reads up to. */
export async function latestMessage(manager: EntityManager, orgId: string, chatId: string) {
  return manager
    .getRepository(MessageRow)
    .createQueryBuilder('m')
    .where('m.orgId = :orgId AND m.chatId = :chatId', { orgId, chatId })
    .orderBy('m.createdAt', 'DESC')
    .addOrderBy('m.id', 'DESC')
    .take(1)
    .getOne();
}
