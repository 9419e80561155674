export { FlowsApp, type FlowsDeps } from './app';
export { flowsConfig, flowsConfigSchema, type FlowsConfig } from './config';
export { flowsData } from './data';
export { renderTemplate } from './domain/template';
