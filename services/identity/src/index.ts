export { IdentityApp } from './app';
export { identityConfig, identityConfigSchema, type IdentityConfig } from './config';
export { identityData } from './data';
export { KEYS_TOPIC } from './domain/api-keys';
export { MEMBERS_TOPIC } from './domain/team';
export { allScopes, scopesOfRole } from './domain/role-scopes';
export type { CreatedOrg, NewOrg } from './domain/orgs';
export { IdentityForTests, type IdentityTestOrg } from './testing';
