import { In, type DataSource, type EntityManager } from 'typeorm';
import {
  FailedPrecondition,
  InvalidArgument,
  enqueueEvents,
  keysetPage,
  newId,
  now,
  requireOrg,
  requireScope,
  subtreeIds,
  toIso,
  type NewEvent,
  type OutboxRelay,
  type PageRequest,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import { ChatStatus, MessageDirection, type ChatPage, type ConversationPage } from '@svc/proto/inbox/v1';
import type {
  ChatCollectionCounts,
  Collection,
  CollectionChatCount,
  CollectionList,
} from '@svc/proto/inbox/v1/collections';
import { ChatRow, CollectionRow, ConversationRow, MessageRow, ReadStateRow } from '../entities';
import { readerOf } from './actor';
import { chatPage } from './chat-views';
import { subtreeHeight, treeOrder } from './collection-tree';
import { conversationPage } from './conversation-views';
import { collectionEvent } from './events';
import { findCollection } from './lookups';

export const MAX_COLLECTIONS_PER_ORG = 500;
/** Levels of nesting: a top-level collection is depth 0, the deepest allowed is MAX_DEPTH - 1. */
export const MAX_DEPTH = 5;

export function collectionView(row: CollectionRow): Collection {
  return {
    _id: row.id,
    name: row.name,
    parentId: row.parentId ?? undefined,
    depth: row.depth,
    createdAt: toIso(row.createdAt),
    updatedAt: toIso(row.updatedAt),
  };
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 100) throw new InvalidArgument('name must be 1-100 characters', { field: 'name' });
  return trimmed;
}

/** The org's collection tree and the chats filed in it. */
export class Collections {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  /** The whole tree (parents before children) or one collection's children. Bounded by MAX_COLLECTIONS_PER_ORG. */
  async list(principal: Principal, parentId: string | undefined): Promise<CollectionList> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    if (parentId !== undefined) {
      const parent = await findCollection(manager, orgId, parentId, 'parentId');
      const rows = await manager.find(CollectionRow, {
        where: { orgId, parentId: parent.id },
        order: { createdAt: 'ASC', id: 'ASC' },
      });
      return { data: rows.map(collectionView) };
    }
    return { data: treeOrder(await manager.findBy(CollectionRow, { orgId })).map(collectionView) };
  }

  async get(principal: Principal, collectionId: string): Promise<Collection> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    return collectionView(await findCollection(this.dataSource.manager, requireOrg(principal), collectionId));
  }

  /** Chats filed directly in the collection, newest first. */
  async chats(principal: Principal, collectionId: string, page: PageRequest): Promise<ChatPage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const collection = await findCollection(manager, orgId, collectionId);
    const query = manager
      .getRepository(ChatRow)
      .createQueryBuilder('c')
      .where('c.orgId = :orgId AND c.collectionId = :collectionId', { orgId, collectionId: collection.id });
    const rows = await keysetPage(
      query,
      { at: 'c.createdAt', id: 'c.id' },
      (r) => ({ at: r.createdAt, id: r.id }),
      page,
      'descending',
    );
    return chatPage(manager, orgId, readerOf(principal), rows);
  }

  async chatCount(principal: Principal, collectionId: string): Promise<CollectionChatCount> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const collection = await findCollection(manager, orgId, collectionId);
    const [total, open] = await Promise.all([
      manager.countBy(ChatRow, { orgId, collectionId: collection.id }),
      manager.countBy(ChatRow, { orgId, collectionId: collection.id, status: ChatStatus.OPEN }),
    ]);
    return { collectionId: collection.id, total, open };
  }

  /** Conversations with at least one thread in the collection, newest first. */
  async conversations(principal: Principal, collectionId: string, page: PageRequest): Promise<ConversationPage> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const collection = await findCollection(manager, orgId, collectionId);
    const query = manager
      .getRepository(ConversationRow)
      .createQueryBuilder('v')
      .where('v.orgId = :orgId', { orgId })
      .andWhere(
        (qb) =>
          `EXISTS ${qb
            .subQuery()
            .select('1')
            .from(ChatRow, 'c')
            .where('c.orgId = v.orgId AND c.conversationId = v.id AND c.collectionId = :collectionId')
            .getQuery()}`,
        { collectionId: collection.id },
      );
    const rows = await keysetPage(
      query,
      { at: 'v.createdAt', id: 'v.id' },
      (r) => ({ at: r.createdAt, id: r.id }),
      page,
      'descending',
    );
    return conversationPage(manager, orgId, readerOf(principal), rows);
  }

  /** Per collection: chats, open chats and chats with unread messages for the caller (three grouped queries). */
  async counts(principal: Principal): Promise<ChatCollectionCounts> {
    requireScope(principal, ApiScope.MESSAGES_READ);
    const orgId = requireOrg(principal);
    const manager = this.dataSource.manager;
    const grouped = await manager
      .getRepository(ChatRow)
      .createQueryBuilder('c')
      .select('c.collectionId', 'collectionId')
      .addSelect('COUNT(*)', 'total')
      .addSelect(`SUM(CASE WHEN c.status = :open THEN 1 ELSE 0 END)`, 'open')
      .where('c.orgId = :orgId', { orgId, open: ChatStatus.OPEN })
      .groupBy('c.collectionId')
      .getRawMany<{ collectionId: string | null; total: string | number; open: string | number | null }>();
    const unread = await manager
      .getRepository(ChatRow)
      .createQueryBuilder('c')
      .select('c.collectionId', 'collectionId')
      .addSelect('COUNT(DISTINCT c.id)', 'unread')
      .innerJoin(
        MessageRow,
        'm',
        'm.orgId = c.orgId AND m.chatId = c.id AND m.direction = :inbound AND m.internal = :internal AND m.deletedAt IS NULL',
        { inbound: MessageDirection.INBOUND, internal: false },
      )
      .leftJoin(ReadStateRow, 'r', 'r.orgId = c.orgId AND r.chatId = c.id AND r.readerId = :reader', {
        reader: readerOf(principal) ?? '',
      })
      .where('c.orgId = :orgId AND c.collectionId IS NOT NULL', { orgId })
      .andWhere('(r.id IS NULL OR m.createdAt > r.readUpTo OR (m.createdAt = r.readUpTo AND m.id > r.readUpToId))')
      .groupBy('c.collectionId')
      .getRawMany<{ collectionId: string; unread: string | number }>();
    const unreadOf = new Map(unread.map((u) => [u.collectionId, Number(u.unread)]));
    const collections = treeOrder(await manager.findBy(CollectionRow, { orgId }));
    const byCollection = new Map(grouped.map((g) => [g.collectionId ?? '', g]));
    const none = byCollection.get('');
    return {
      data: collections.map((c) => ({
        collectionId: c.id,
        total: Number(byCollection.get(c.id)?.total ?? 0),
        open: Number(byCollection.get(c.id)?.open ?? 0),
        unread: unreadOf.get(c.id) ?? 0,
      })),
      uncollectedTotal: Number(none?.total ?? 0),
      uncollectedOpen: Number(none?.open ?? 0),
    };
  }

  async create(principal: Principal, name: string, parentId: string | undefined): Promise<Collection> {
    return this.write(principal, async (manager, orgId, at) => {
      // Validated once the scope is checked: a caller without it learns nothing from its arguments.
      const valid = validName(name);
      if ((await manager.countBy(CollectionRow, { orgId })) >= MAX_COLLECTIONS_PER_ORG)
        throw new FailedPrecondition(`an org has at most ${MAX_COLLECTIONS_PER_ORG} collections`, { field: 'name' });
      const parent = parentId === undefined ? undefined : await findCollection(manager, orgId, parentId, 'parentId');
      const depth = parent ? parent.depth + 1 : 0;
      if (depth >= MAX_DEPTH)
        throw new FailedPrecondition(`collections nest at most ${MAX_DEPTH} levels deep`, { field: 'parentId' });
      const row = manager.create(CollectionRow, {
        id: newId(at),
        orgId,
        name: valid,
        parentId: parent?.id ?? null,
        depth,
        createdAt: at,
        updatedAt: at,
      });
      await manager.insert(CollectionRow, row);
      return { row, events: [collectionEvent('collection.created', row)] };
    });
  }

  async update(principal: Principal, collectionId: string, name: string): Promise<Collection> {
    return this.write(principal, async (manager, orgId, at) => {
      const valid = validName(name);
      const row = await findCollection(manager, orgId, collectionId);
      if (row.name === valid) return { row, events: [] };
      row.name = valid;
      row.updatedAt = at;
      await manager.update(CollectionRow, { id: row.id }, { name: valid, updatedAt: at });
      return { row, events: [collectionEvent('collection.updated', row)] };
    });
  }

  /** Moves a collection with its sub-tree under another (or to the top); never under itself or its descendants. */
  async move(principal: Principal, collectionId: string, parentId: string | undefined): Promise<Collection> {
    return this.write(principal, async (manager, orgId, at) => {
      const row = await findCollection(manager, orgId, collectionId);
      const parent = parentId === undefined ? undefined : await findCollection(manager, orgId, parentId, 'parentId');
      if ((parent?.id ?? null) === row.parentId) return { row, events: [] };
      const all = await manager.findBy(CollectionRow, { orgId });
      const moving = subtreeIds(all, row.id);
      if (parent && moving.includes(parent.id))
        throw new FailedPrecondition('a collection cannot move under itself or its descendants', { field: 'parentId' });
      const depth = parent ? parent.depth + 1 : 0;
      if (depth + subtreeHeight(all, row.id) > MAX_DEPTH)
        throw new FailedPrecondition(`collections nest at most ${MAX_DEPTH} levels deep`, { field: 'parentId' });
      const shift = depth - row.depth;
      for (const id of moving) {
        const node = all.find((c) => c.id === id);
        if (node && id !== row.id)
          await manager.update(CollectionRow, { id }, { depth: node.depth + shift, updatedAt: at });
      }
      row.parentId = parent?.id ?? null;
      row.depth = depth;
      row.updatedAt = at;
      await manager.update(CollectionRow, { id: row.id }, { parentId: row.parentId, depth, updatedAt: at });
      return { row, events: [collectionEvent('collection.moved', row)] };
    });
  }

  /** Deletes the collection and its sub-tree; their chats stay, filed nowhere. */
  async remove(principal: Principal, collectionId: string): Promise<{ deletedIds: string[] }> {
    let deletedIds: string[] = [];
    await this.write(principal, async (manager, orgId, at) => {
      const row = await findCollection(manager, orgId, collectionId);
      const all = await manager.findBy(CollectionRow, { orgId });
      deletedIds = subtreeIds(all, row.id);
      await manager.update(ChatRow, { orgId, collectionId: In(deletedIds) }, { collectionId: null, updatedAt: at });
      await manager.delete(CollectionRow, { orgId, id: In(deletedIds) });
      const events = all.filter((c) => deletedIds.includes(c.id)).map((c) => collectionEvent('collection.deleted', c));
      return { row, events };
    });
    return { deletedIds };
  }

  private async write(
    principal: Principal,
    apply: (manager: EntityManager, orgId: string, at: Date) => Promise<{ row: CollectionRow; events: NewEvent[] }>,
  ): Promise<Collection> {
    requireScope(principal, ApiScope.CONVERSATIONS_MANAGE);
    const orgId = requireOrg(principal);
    const row = await this.dataSource.transaction(async (manager) => {
      const at = now();
      const result = await apply(manager, orgId, at);
      await enqueueEvents(manager, result.events, at);
      return result.row;
    });
    this.relay().nudge();
    return collectionView(row);
  }
}
