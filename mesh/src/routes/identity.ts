import { ok, type Route } from './route';

export const identityRoutes: Record<string, Route> = {
  login: { service: 'identity', method: 'Login' },
  logout: { service: 'identity', method: 'Logout', response: ok, effect: 'evict-session' },
  mintOrgApiKey: { service: 'identity', method: 'MintOrgApiKey' },
  orgApiKeys: { service: 'identity', method: 'ListOrgApiKeys', response: (r) => r.keys ?? [] },
  revokeOrgApiKey: { service: 'identity', method: 'RevokeOrgApiKey', effect: 'evict-key' },
  orgTeamMembers: { service: 'identity', method: 'ListTeamMembers', response: (r) => r.members ?? [] },
  addOrgMemberDirect: {
    service: 'identity',
    method: 'AddMemberDirect',
    request: (a) => a.input as Record<string, unknown>,
  },
  updateOrgMemberRole: { service: 'identity', method: 'UpdateMemberRole' },
  removeOrgMember: { service: 'identity', method: 'RemoveMember', response: ok },
};
