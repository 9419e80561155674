export { PartnerApp, type PartnerDeps } from './app';
export { partnerConfig, partnerConfigSchema, type PartnerConfig } from './config';
export { partnerData } from './data';
export { PARTNER_ORG_ROWS } from './domain/org-erasure';
export * from './entities';
