export { WebhookIngressApp, type IngressDeps } from './app';
export { ingressConfig, ingressConfigSchema, type IngressConfig } from './config';
export { ingressData } from './data';
export { RECEIVED_TOPIC } from './domain/events';
export { enforceRetention } from './domain/retention';
