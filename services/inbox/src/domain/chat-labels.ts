import { In, type EntityManager } from 'typeorm';
import { FailedPrecondition, now } from '@svc/kit';
import { ChatLabelRow, type ChatRow } from '../entities';
import { requireApplicableLabels } from './label-rules';

/** A thread carries at most as many labels as a message (docs/decisions/0020-inbox-domain-model.md). */
export const MAX_LABELS_PER_CHAT = 20;

/** The label ids of each thread, oldest first: one query for a whole page of chats. */
export async function chatLabelIds(
  manager: EntityManager,
  orgId: string,
  chatIds: string[],
): Promise<Map<string, string[]>> {
  const byChat = new Map<string, string[]>(chatIds.map((id) => [id, []]));
  if (!chatIds.length) return byChat;
  const rows = await manager.find(ChatLabelRow, {
    where: { orgId, chatId: In(chatIds) },
    order: { createdAt: 'ASC', labelId: 'ASC' },
  });
  for (const row of rows) byChat.get(row.chatId)?.push(row.labelId);
  return byChat;
}

/**
 * Replaces the thread's labels with `wanted` (distinct ids, their form already checked), by the rules of
 * `requireApplicableLabels`. Returns the thread's labels after the change, or
 * undefined when it already carried exactly these.
 */
export async function replaceChatLabels(
  manager: EntityManager,
  chat: ChatRow,
  wanted: string[],
  field: string,
): Promise<string[] | undefined> {
  const current = await labelsOf(manager, chat);
  const added = wanted.filter((id) => !current.includes(id));
  await requireApplicableLabels(manager, chat.orgId, wanted, added, field);
  const removed = current.filter((id) => !wanted.includes(id));
  if (!added.length && !removed.length) return undefined;
  if (removed.length) await manager.delete(ChatLabelRow, { orgId: chat.orgId, chatId: chat.id, labelId: In(removed) });
  await insertLabels(manager, chat, added);
  return wanted;
}

/**
 * Adds one label to the thread (a flow's "add a label" step). Idempotent: a label the thread already carries, archived
 * or not, changes nothing (undefined); otherwise the same rules as `replaceChatLabels`, and a thread that is full
 * refuses it (FAILED_PRECONDITION).
 */
export async function addChatLabel(
  manager: EntityManager,
  chat: ChatRow,
  labelId: string,
  field: string,
): Promise<string[] | undefined> {
  const current = await labelsOf(manager, chat);
  if (current.includes(labelId)) return undefined;
  await requireApplicableLabels(manager, chat.orgId, [labelId], [labelId], field);
  if (current.length >= MAX_LABELS_PER_CHAT)
    throw new FailedPrecondition(`a thread carries at most ${MAX_LABELS_PER_CHAT} labels`, { field });
  await insertLabels(manager, chat, [labelId]);
  return [...current, labelId];
}

async function labelsOf(manager: EntityManager, chat: ChatRow): Promise<string[]> {
  return (await chatLabelIds(manager, chat.orgId, [chat.id])).get(chat.id) ?? [];
}

/** A row already there (the same label added concurrently) is left as it is, not an error. */
async function insertLabels(manager: EntityManager, chat: ChatRow, labelIds: string[]): Promise<void> {
  if (!labelIds.length) return;
  const at = now();
  await manager
    .createQueryBuilder()
    .insert()
    .into(ChatLabelRow)
    .values(labelIds.map((labelId) => ({ chatId: chat.id, labelId, orgId: chat.orgId, createdAt: at })))
    .orIgnore()
    .execute();
}
