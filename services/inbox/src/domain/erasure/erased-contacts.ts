import type { EntityManager } from 'typeorm';
import { NotFound, familyOf } from '@svc/kit';
import { ErasedContactRow } from '../../entities';

/**
 * The inbox's tombstones of erased contacts (docs/decisions/0169). The erasure records one as the FIRST statement of
 * its transaction; every write that creates something for a contact checks it as the first statement of its own.
 * On the MySQL family the check is a locking read (shared): a write checking first holds the key (or its gap) and the
 * erasure's insert waits for it, then erases what the write made; an erasure inserting first makes the check wait for
 * its commit and then see the tombstone. SQLite runs transactions one at a time.
 */
export async function recordErasedContact(manager: EntityManager, orgId: string, contactId: string, at: Date) {
  // Erasing again (a redelivered request, apiDeleteConversation racing the consumer) keeps the first tombstone.
  await manager
    .createQueryBuilder()
    .insert()
    .into(ErasedContactRow)
    .values({ orgId, contactId, erasedAt: at })
    .orIgnore()
    .execute();
}

/**
 * NOT_FOUND, worded like a contact nobody knows (`field` names the argument that named it), when the inbox erased the
 * contact. `lock: false` for a write that already holds a lock the erasure takes after the tombstone (ReceiveMessage
 * holds its chat's row: the erasure, which locks the contact's chats, is then ordered by that lock instead).
 */
export async function requireNotErased(
  manager: EntityManager,
  orgId: string,
  contactId: string,
  field: string,
  lock = true,
): Promise<void> {
  const erased = await manager.findOne(ErasedContactRow, {
    where: { orgId, contactId },
    ...(lock && familyOf(manager.connection) === 'mysql' ? { lock: { mode: 'pessimistic_read' as const } } : {}),
  });
  if (erased) throw new NotFound('contact not found', { field });
}
