export { ContentApp, type ContentDeps } from './app';
export { contentConfig, contentConfigSchema, type ContentConfig } from './config';
export { contentData } from './data';
export * from './entities';
