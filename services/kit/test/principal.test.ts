import { expect } from 'chai';
import { ApiScope, MemberRole, OrgKind, PrincipalKind, hasScope, systemPrincipal, type Principal } from '../src';

const key: Principal = {
  kind: PrincipalKind.API_KEY,
  orgId: '0123456789abcdef01234567',
  orgKind: OrgKind.STANDARD,
  keyId: 'abcdefabcdefabcdefabcdef',
  memberId: '',
  role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
  scopes: [ApiScope.MESSAGES_READ],
  sessionId: '',
  visitorContactId: '',
  visitorChannelId: '',
};

describe('kit.hasScope', () => {
  it('grants keys only their scopes and services everything', () => {
    expect(hasScope(key, ApiScope.MESSAGES_READ)).to.equal(true);
    expect(hasScope(key, ApiScope.NOTES_WRITE)).to.equal(false);
    expect(hasScope(systemPrincipal('0123456789abcdef01234567'), ApiScope.NOTES_WRITE)).to.equal(true);
  });
});
