import { expect } from 'chai';
import {
  ApiScope,
  MemberRole,
  OrgKind,
  PrincipalCodec,
  PrincipalKind,
  Unauthenticated,
  hasScope,
  systemPrincipal,
  type Principal,
} from '../src';

const key: Principal = {
  kind: PrincipalKind.API_KEY,
  orgId: '0123456789abcdef01234567',
  orgKind: OrgKind.STANDARD,
  keyId: 'abcdefabcdefabcdefabcdef',
  memberId: '',
  role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
  scopes: [ApiScope.MESSAGES_READ],
  sessionId: '',
};

describe('kit.PrincipalCodec', () => {
  const codec = new PrincipalCodec('x'.repeat(32));

  it('verifies what it signed', () => {
    const metadata = codec.metadata(key);
    expect(codec.fromMetadata(metadata)).to.deep.equal(key);
  });

  it('refuses a principal signed with another secret', () => {
    const forged = new PrincipalCodec('y'.repeat(32)).metadata({ ...key, scopes: [ApiScope.PII_READ] });
    expect(() => codec.fromMetadata(forged)).to.throw(Unauthenticated);
  });

  it('refuses a principal whose body was changed after signing', () => {
    const { signature } = codec.encode(key);
    const widened = codec.encode({ ...key, scopes: [...key.scopes, ApiScope.PII_READ] }).value;
    expect(() => codec.decode(widened, signature)).to.throw(Unauthenticated);
  });

  it('refuses a call without a principal', () => {
    expect(() => codec.decode(undefined, undefined)).to.throw(Unauthenticated);
  });

  it('refuses secrets shorter than 32 characters', () => {
    expect(() => new PrincipalCodec('short')).to.throw(/32/);
  });
});

describe('kit.hasScope', () => {
  it('grants keys only their scopes and services everything', () => {
    expect(hasScope(key, ApiScope.MESSAGES_READ)).to.equal(true);
    expect(hasScope(key, ApiScope.NOTES_WRITE)).to.equal(false);
    expect(hasScope(systemPrincipal('0123456789abcdef01234567'), ApiScope.NOTES_WRITE)).to.equal(true);
  });
});
