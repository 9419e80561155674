export { ContentApp, type ContentDeps } from './app';
export { contentConfig, contentConfigSchema, type ContentConfig } from './config';
export { contentData } from './data';
export * from './entities';
export { renderMarkdown } from './domain/markdown';
export { indexTranslation } from './domain/help-articles/search-index';
