import type { DataSource, EntityManager } from 'typeorm';
import {
  FailedPrecondition,
  enqueueEvents,
  newId,
  now,
  requireOrg,
  requireScope,
  type NewEvent,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type {
  CreateHelpFolderRequest,
  DeleteHelpFolderRequest,
  DeleteHelpFolderResult,
  HelpFolder,
  MoveHelpFolderRequest,
  UpdateHelpFolderRequest,
} from '@svc/proto/content/v1/help_folders';
import { HelpArticleRow, HelpFolderRow } from '../../entities';
import { contentEvent } from '../events';
import { checkDescription, checkName } from './rules';
import { folderIn, loadTree, renumber } from './store';
import { MAX_FOLDERS_PER_ORG, siblingOrder } from './tree';
import { folderView } from './views';

const folderEvent = (verb: 'created' | 'updated' | 'moved' | 'deleted', row: HelpFolderRow): NewEvent =>
  contentEvent({ object: 'help_folder', verb, orgId: row.orgId, id: row.id });

/** A write's answer and the events it emits in its transaction. */
interface Written<T> {
  result: T;
  events: NewEvent[];
}

/** What CONTENT_MANAGE changes in the org's help folders; each change emits its event in its transaction. */
export class HelpFolderWrites {
  constructor(
    private readonly dataSource: DataSource,
    private readonly relay: () => OutboxRelay,
  ) {}

  async create(principal: Principal, input: CreateHelpFolderRequest): Promise<HelpFolder> {
    return this.write(principal, async (manager, orgId, at) => {
      // Checked once the scope is: a caller without it learns nothing from its arguments.
      const name = checkName(input.name);
      const description = checkDescription(input.description);
      const tree = await loadTree(manager, orgId, true);
      if (tree.rows.length >= MAX_FOLDERS_PER_ORG)
        throw new FailedPrecondition(`an org has at most ${MAX_FOLDERS_PER_ORG} help folders`, { field: 'name' });
      const parentId = input.parentId === undefined ? null : folderIn(tree, input.parentId, 'parentId').id;
      tree.checkPlacement(undefined, parentId);
      const id = newId(at);
      const order = siblingOrder(tree, parentId, [id], input.position);
      const row = manager.create(HelpFolderRow, {
        id,
        orgId,
        parentId,
        name,
        description,
        position: order.indexOf(id),
        createdAt: at,
        updatedAt: at,
      });
      await renumber(manager, tree, order, id);
      await manager.insert(HelpFolderRow, row);
      const depth = parentId === null ? 0 : tree.depthOf(parentId) + 1;
      return { result: folderView(row, depth), events: [folderEvent('created', row)] };
    });
  }

  async update(principal: Principal, input: UpdateHelpFolderRequest): Promise<HelpFolder> {
    return this.write(principal, async (manager, orgId, at) => {
      const name = input.name === undefined ? undefined : checkName(input.name);
      const description = input.description === undefined ? undefined : checkDescription(input.description);
      const tree = await loadTree(manager, orgId, true);
      const row = folderIn(tree, input.id, 'id');
      const next = { name: name ?? row.name, description: description === undefined ? row.description : description };
      if (next.name === row.name && next.description === row.description)
        return { result: folderView(row, tree.depthOf(row.id)), events: [] };
      Object.assign(row, next, { updatedAt: at });
      await manager.update(HelpFolderRow, { id: row.id, orgId }, { ...next, updatedAt: at });
      return { result: folderView(row, tree.depthOf(row.id)), events: [folderEvent('updated', row)] };
    });
  }

  /** Moves a folder with its sub-tree (docs/decisions/0195); staying where it is changes nothing and emits nothing. */
  async move(principal: Principal, input: MoveHelpFolderRequest): Promise<HelpFolder> {
    return this.write(principal, async (manager, orgId, at) => {
      const tree = await loadTree(manager, orgId, true);
      const row = folderIn(tree, input.id, 'id');
      const parentId = input.parentId === undefined ? null : folderIn(tree, input.parentId, 'parentId').id;
      tree.checkPlacement(row.id, parentId);
      const order = siblingOrder(tree, parentId, [row.id], input.position);
      const position = order.indexOf(row.id);
      const depth = parentId === null ? 0 : tree.depthOf(parentId) + 1;
      if (parentId === row.parentId && position === row.position) return { result: folderView(row, depth), events: [] };
      if (parentId !== row.parentId)
        await renumber(
          manager,
          tree,
          tree
            .childrenOf(row.parentId)
            .map((sibling) => sibling.id)
            .filter((id) => id !== row.id),
        );
      await renumber(manager, tree, order, row.id);
      Object.assign(row, { parentId, position, updatedAt: at });
      await manager.update(HelpFolderRow, { id: row.id, orgId }, { parentId, position, updatedAt: at });
      return { result: folderView(row, depth), events: [folderEvent('moved', row)] };
    });
  }

  /**
   * Deletes a folder (docs/decisions/0197). One holding sub-folders or articles is refused (FAILED_PRECONDITION) unless
   * `moveContentToParent`: then its sub-folders take its place among its siblings and its articles go to its parent
   * (no folder at the top), each moved one with its event.
   */
  async delete(principal: Principal, input: DeleteHelpFolderRequest): Promise<DeleteHelpFolderResult> {
    return this.write(principal, async (manager, orgId, at) => {
      const tree = await loadTree(manager, orgId, true);
      const row = folderIn(tree, input.id, 'id');
      const children = tree.childrenOf(row.id);
      const articles = await manager.find(HelpArticleRow, { select: { id: true }, where: { orgId, folderId: row.id } });
      if ((children.length || articles.length) && !input.moveContentToParent)
        throw new FailedPrecondition(
          `the folder holds ${children.length} sub-folder(s) and ${articles.length} article(s); ` +
            'set moveContentToParent to move them to its parent',
          { field: 'id' },
        );
      const order = tree
        .childrenOf(row.parentId)
        .flatMap((sibling) => (sibling.id === row.id ? children.map((child) => child.id) : [sibling.id]));
      for (const child of children) {
        Object.assign(child, { parentId: row.parentId, updatedAt: at });
        await manager.update(HelpFolderRow, { id: child.id, orgId }, { parentId: row.parentId, updatedAt: at });
      }
      if (articles.length)
        await manager.update(HelpArticleRow, { orgId, folderId: row.id }, { folderId: row.parentId, updatedAt: at });
      await manager.delete(HelpFolderRow, { id: row.id, orgId });
      await renumber(manager, tree, order);
      const events = [
        folderEvent('deleted', row),
        ...children.map((child) => folderEvent('moved', child)),
        ...articles.map((article) => contentEvent({ object: 'help_article', verb: 'updated', orgId, id: article.id })),
      ];
      return { result: { id: row.id, movedFolders: children.length, movedArticles: articles.length }, events };
    });
  }

  private async write<T>(
    principal: Principal,
    apply: (manager: EntityManager, orgId: string, at: Date) => Promise<Written<T>>,
  ): Promise<T> {
    requireScope(principal, ApiScope.CONTENT_MANAGE);
    const orgId = requireOrg(principal);
    const result = await this.dataSource.transaction(async (manager) => {
      const at = now();
      const written = await apply(manager, orgId, at);
      await enqueueEvents(manager, written.events, at);
      return written.result;
    });
    this.relay().nudge();
    return result;
  }
}
