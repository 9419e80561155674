export { HelpFolderReads, MAX_COUNTS_BATCH } from './reads';
export { HelpFolderWrites } from './writes';
export { FolderTree, MAX_DEPTH, MAX_FOLDERS_PER_ORG, rollUp, siblingOrder, type FolderCounts } from './tree';
export { directTallies } from './store';
