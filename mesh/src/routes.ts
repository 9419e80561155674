/**
 * The one table that maps each public root field to a gRPC method of a service. Arguments pass through by name
 * (camelCase → the proto's snake_case) unless `request` reshapes them; the response passes back (snake_case →
 * camelCase) unless `response` picks a part of it. The gateway generates every public resolver from this table.
 */
export interface Route {
  service: 'identity' | 'inbox';
  /** The gRPC method name as in the .proto. */
  method: string;
  request?: (args: Record<string, unknown>) => Record<string, unknown>;
  response?: (result: Record<string, unknown>) => unknown;
  /** Runs after success, e.g. to evict a revoked credential from the gateway's cache at once. */
  effect?: 'evict-key' | 'evict-session';
}

const ok = (result: Record<string, unknown>) => result.ok === true;

export const ROUTES: Record<string, Route> = {
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

  chat: { service: 'inbox', method: 'GetChat' },
  getMessages: { service: 'inbox', method: 'GetMessages' },
  searchChats: {
    service: 'inbox',
    method: 'SearchChats',
    request: (a) => ({ ...(a.filter as object | undefined), input: a.input }),
  },
  sendMessage: { service: 'inbox', method: 'SendMessage' },
  closeChat: { service: 'inbox', method: 'CloseChat' },
  reopenChat: { service: 'inbox', method: 'ReopenChat' },
};

export const SERVICE_PACKAGES: Record<Route['service'], string> = {
  identity: 'svc_identity_v1_IdentityService',
  inbox: 'svc_inbox_v1_InboxService',
};
