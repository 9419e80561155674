import type { DataSource } from 'typeorm';
import { InvalidArgument, requireOrg, requireScope, type Principal } from '@svc/kit';
import { ApiScope } from '@svc/proto/common/v1';
import type {
  HelpFolder,
  HelpFolderCounts,
  HelpFolderPage,
  HelpFolderTree,
  ListHelpFoldersRequest,
} from '@svc/proto/content/v1/help_folders';
import { localeOr } from '../locales';
import { offsetPageOf, pageInfoOf } from '../page';
import { directTallies, folderIn, loadTree } from './store';
import { rollUp } from './tree';
import { folderView, nodesOf } from './views';

/** Most folders one helpFolderCountsBatch may ask about. */
export const MAX_COUNTS_BATCH = 100;

/** What CONTENT_READ shows of the org's help folders. */
export class HelpFolderReads {
  constructor(private readonly dataSource: DataSource) {}

  private async tree(principal: Principal) {
    requireScope(principal, ApiScope.CONTENT_READ);
    return loadTree(this.dataSource.manager, requireOrg(principal));
  }

  /**
   * A page of the children of `parentId`, of the top level, or of every folder (docs/decisions/0198): siblings by
   * position then id; every folder in tree order (each followed by the folders under it).
   */
  async list(principal: Principal, request: ListHelpFoldersRequest): Promise<HelpFolderPage> {
    const tree = await this.tree(principal);
    const page = offsetPageOf(request.page);
    if (request.parentId !== undefined && request.topLevel)
      throw new InvalidArgument('give parentId or topLevel, not both', { field: 'topLevel' });
    const rows =
      request.parentId !== undefined
        ? tree.childrenOf(folderIn(tree, request.parentId, 'parentId').id)
        : request.topLevel
          ? tree.childrenOf(null)
          : tree.preorder();
    return {
      data: rows.slice(page.offset, page.offset + page.limit).map((row) => folderView(row, tree.depthOf(row.id))),
      pageInfo: pageInfoOf(page, rows.length),
    };
  }

  async get(principal: Principal, id: string): Promise<HelpFolder> {
    const tree = await this.tree(principal);
    const row = folderIn(tree, id, 'id');
    return folderView(row, tree.depthOf(row.id));
  }

  async wholeTree(principal: Principal): Promise<HelpFolderTree> {
    return { data: nodesOf(await this.tree(principal)) };
  }

  /** Each folder's counts, in the order asked (repeats answered once), from one grouped query over the org. */
  async counts(
    principal: Principal,
    ids: string[],
    locale: string | undefined,
    field: string,
  ): Promise<HelpFolderCounts[]> {
    const tree = await this.tree(principal);
    if (ids.length > MAX_COUNTS_BATCH)
      throw new InvalidArgument(`at most ${MAX_COUNTS_BATCH} folders per call`, { field });
    const folders = [...new Set(ids)].map((id) => folderIn(tree, id, field));
    const canonical = localeOr(locale, undefined);
    const direct = await directTallies(this.dataSource.manager, requireOrg(principal), canonical);
    return folders.map((row) => rollUp(tree, direct, row.id));
  }
}
