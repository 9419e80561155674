export { PartnerApp, type PartnerDeps } from './app';
export { partnerConfig, partnerConfigSchema, type PartnerConfig } from './config';
export { partnerData } from './data';
export { PARTNER_ORG_ROWS } from './domain/org-erasure';
export * from './entities';
export { DeliveryEngine, type DeliveryEngineOptions } from './domain/delivery/engine';
export { Fanout } from './domain/fanout/fanout';
export type { PartnerEvent } from './domain/fanout/mapping';
export { WebhookSecrets } from './domain/webhook-secrets';
