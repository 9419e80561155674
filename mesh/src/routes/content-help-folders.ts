import { contentPage, contentPageRequest } from './content-page';
import type { Route } from './route';

type Json = Record<string, unknown>;

const SERVICE = 'contentHelpFolders';

export const contentHelpFolderRoutes: Record<string, Route> = {
  helpFolders: {
    service: SERVICE,
    method: 'ListHelpFolders',
    request: contentPageRequest,
    response: (page) => contentPage(page),
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
