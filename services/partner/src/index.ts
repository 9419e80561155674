export { PartnerApp, type PartnerDeps } from './app';
export { partnerConfig, partnerConfigSchema, type PartnerConfig } from './config';
export { partnerData } from './data';
export * from './entities';
export { isPublicAddress } from './domain/endpoint-address';
