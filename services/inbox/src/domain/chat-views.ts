import type { EntityManager } from 'typeorm';
import type { Page } from '@svc/kit';
import type { Chat } from '@svc/proto/inbox/v1';
import type { ChatRow } from '../entities';
import { chatLabelIds } from './chat-labels';
import { unreadCounts } from './read-state';
import { chatView } from './views';

/** Chat views with the reader's unread counts and the threads' labels: two queries for the whole list. */
export async function chatViews(
  manager: EntityManager,
  orgId: string,
  readerId: string | undefined,
  rows: ChatRow[],
): Promise<Chat[]> {
  const chatIds = rows.map((r) => r.id);
  const [unread, labels] = await Promise.all([
    unreadCounts(manager, orgId, chatIds, readerId),
    chatLabelIds(manager, orgId, chatIds),
  ]);
  return rows.map((row) => chatView(row, unread.get(row.id) ?? 0, labels.get(row.id) ?? []));
}

export async function chatViewOf(manager: EntityManager, readerId: string | undefined, row: ChatRow): Promise<Chat> {
  const [view] = await chatViews(manager, row.orgId, readerId, [row]);
  if (!view) throw new Error('unreachable: one row gives one view');
  return view;
}

export async function chatPage(
  manager: EntityManager,
  orgId: string,
  readerId: string | undefined,
  page: Page<ChatRow>,
) {
  return { ...page, data: await chatViews(manager, orgId, readerId, page.data) };
}
