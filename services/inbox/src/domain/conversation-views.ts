import { In, type EntityManager } from 'typeorm';
import type { Page } from '@svc/kit';
import { ChatStatus, type Conversation } from '@svc/proto/inbox/v1';
import { ChatRow, type ConversationRow } from '../entities';
import { unreadCounts } from './read-state';
import { conversationView, type ConversationStats } from './views';

/** Conversation views with thread counts and the reader's unread count, a fixed number of queries per list. */
export async function conversationViews(
  manager: EntityManager,
  orgId: string,
  readerId: string | undefined,
  rows: ConversationRow[],
): Promise<Conversation[]> {
  if (!rows.length) return [];
  const chats = await manager.find(ChatRow, {
    select: { id: true, conversationId: true, status: true },
    where: { orgId, conversationId: In(rows.map((r) => r.id)) },
  });
  const unread = await unreadCounts(
    manager,
    orgId,
    chats.map((c) => c.id),
    readerId,
  );
  const stats = new Map<string, ConversationStats>(
    rows.map((r) => [r.id, { unreadCount: 0, threadCount: 0, openThreadCount: 0 }]),
  );
  for (const chat of chats) {
    const entry = chat.conversationId ? stats.get(chat.conversationId) : undefined;
    if (!entry) continue;
    entry.threadCount += 1;
    if (chat.status === ChatStatus.OPEN) entry.openThreadCount += 1;
    entry.unreadCount += unread.get(chat.id) ?? 0;
  }
  return rows.map((row) => conversationView(row, stats.get(row.id)));
}

export async function conversationViewOf(
  manager: EntityManager,
  readerId: string | undefined,
  row: ConversationRow,
): Promise<Conversation> {
  const [view] = await conversationViews(manager, row.orgId, readerId, [row]);
  if (!view) throw new Error('unreachable: one row gives one view');
  return view;
}

export async function conversationPage(
  manager: EntityManager,
  orgId: string,
  readerId: string | undefined,
  page: Page<ConversationRow>,
) {
  return { ...page, data: await conversationViews(manager, orgId, readerId, page.data) };
}
