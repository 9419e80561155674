export { Stack, type StackOptions } from './stack';
export { stackConfig, stackConfigSchema, type StackConfig } from './config';
export { seedDemo, demoEnvPath, type DemoCredentials } from './demo-seed';
export type { BenchCommand, BenchMemory, BenchReply, BenchRequest } from './bench-control';
export { answerCommands } from './demo-page';
export { CACHE_CONTROL as WIDGET_ASSET_CACHE_CONTROL } from './widget-assets';
