import type { Route } from './route';

type Json = Record<string, unknown>;

const SERVICE = 'contentHelpFolders';

/** A content page as the public schema has it: `{ data, totalCount, hasMore }` (the proto nests the page info). */
const page = (result: Json): Json => {
  const info = (result.pageInfo as Json | undefined) ?? {};
  return { data: result.data ?? [], totalCount: info.totalCount ?? 0, hasMore: info.hasMore ?? false };
};

export const contentHelpFolderRoutes: Record<string, Route> = {
  helpFolders: {
    service: SERVICE,
    method: 'ListHelpFolders',
    request: ({ limit, offset, ...filters }) => ({ page: { limit, offset }, ...filters }),
    response: page,
  },
  helpFolder: { service: SERVICE, method: 'GetHelpFolder' },
  helpFolderTree: { service: SERVICE, method: 'GetHelpFolderTree', response: (tree) => tree.data ?? [] },
  helpFolderCounts: { service: SERVICE, method: 'GetHelpFolderCounts' },
  helpFolderCountsBatch: { service: SERVICE, method: 'GetHelpFolderCountsBatch', response: (list) => list.data ?? [] },
  createHelpFolder: { service: SERVICE, method: 'CreateHelpFolder', request: (a) => ({ ...(a.input as Json) }) },
  updateHelpFolder: {
    service: SERVICE,
    method: 'UpdateHelpFolder',
    request: (a) => ({ ...(a.input as Json), id: a.id }),
  },
  moveHelpFolder: { service: SERVICE, method: 'MoveHelpFolder' },
  deleteHelpFolder: { service: SERVICE, method: 'DeleteHelpFolder' },
};
