import { createHmac, timingSafeEqual } from 'node:crypto';
import { Metadata } from '@grpc/grpc-js';
import { ApiScope, MemberRole, OrgKind, Principal, PrincipalKind } from '@svc/proto/common/v1';
import { Forbidden, Unauthenticated } from './errors';

export { ApiScope, MemberRole, OrgKind, Principal, PrincipalKind };

export const PRINCIPAL_HEADER = 'x-svc-principal';
export const PRINCIPAL_SIGNATURE_HEADER = 'x-svc-principal-sig';
/** The address a public request came from, as the gateway determined it; sent with login (login throttle). */
export const CLIENT_ADDRESS_HEADER = 'x-svc-client-address';

/**
 * Signs principals passed between services. Services trust a principal only when its HMAC verifies with the
 * installation's internal secret, which only the gateway and the services hold (see docs/decisions/0002).
 */
export class PrincipalCodec {
  /** Signed SYSTEM principals by org id (see systemMetadata). */
  private readonly systemSigned = new Map<string, { value: string; signature: string }>();

  constructor(private readonly secret: string) {
    if (secret.length < 32) throw new Error('the internal secret must be at least 32 characters');
  }

  encode(principal: Principal): { value: string; signature: string } {
    const value = Buffer.from(JSON.stringify(Principal.toJSON(principal))).toString('base64url');
    return { value, signature: this.sign(value) };
  }

  /** gRPC metadata carrying the signed principal. */
  metadata(principal: Principal): Metadata {
    const { value, signature } = this.encode(principal);
    const metadata = new Metadata();
    metadata.set(PRINCIPAL_HEADER, value);
    metadata.set(PRINCIPAL_SIGNATURE_HEADER, signature);
    return metadata;
  }

  /**
   * Metadata carrying the SYSTEM principal of an org, as a service calls another on an org's behalf (flows' steps):
   * the same as `metadata(systemPrincipal(orgId))`, signed once per org and reused (at most 10 000 orgs kept).
   */
  systemMetadata(orgId: string): Metadata {
    let signed = this.systemSigned.get(orgId);
    if (!signed) {
      if (this.systemSigned.size >= 10_000) this.systemSigned.clear();
      signed = this.encode(systemPrincipal(orgId));
      this.systemSigned.set(orgId, signed);
    }
    const metadata = new Metadata();
    metadata.set(PRINCIPAL_HEADER, signed.value);
    metadata.set(PRINCIPAL_SIGNATURE_HEADER, signed.signature);
    return metadata;
  }

  decode(value: string | undefined, signature: string | undefined): Principal {
    if (!value || !signature) throw new Unauthenticated('missing principal');
    const expected = Buffer.from(this.sign(value));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new Unauthenticated('principal signature does not verify');
    }
    return Principal.fromJSON(JSON.parse(Buffer.from(value, 'base64url').toString('utf8')));
  }

  fromMetadata(metadata: Metadata): Principal {
    const first = (key: string) => {
      const v = metadata.get(key)[0];
      return typeof v === 'string' ? v : v?.toString('utf8');
    };
    return this.decode(first(PRINCIPAL_HEADER), first(PRINCIPAL_SIGNATURE_HEADER));
  }

  private sign(value: string): string {
    return createHmac('sha256', this.secret).update(value).digest('base64url');
  }
}

export function systemPrincipal(orgId = ''): Principal {
  return {
    kind: PrincipalKind.SYSTEM,
    orgId,
    orgKind: OrgKind.ORG_KIND_UNSPECIFIED,
    keyId: '',
    memberId: '',
    role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
    scopes: [],
    sessionId: '',
  };
}

/** Keys hold the scopes they were minted with, members those of their role; services act with every scope. */
export function hasScope(principal: Principal, scope: ApiScope): boolean {
  return principal.kind === PrincipalKind.SYSTEM || principal.scopes.includes(scope);
}

export function requireScope(principal: Principal, scope: ApiScope): void {
  if (!hasScope(principal, scope)) throw new Forbidden(`missing scope ${scope}`, { scope });
}

export function requireOrg(principal: Principal): string {
  if (!principal.orgId) throw new Forbidden('this call needs an org');
  return principal.orgId;
}

export function requireSystem(principal: Principal): void {
  if (principal.kind !== PrincipalKind.SYSTEM) throw new Forbidden('only services of this installation may call this');
}

export function requireMemberSession(principal: Principal): void {
  if (principal.kind !== PrincipalKind.MEMBER_SESSION) {
    throw new Forbidden('this operation is available only from a dashboard session, never with an API key');
  }
}

/** The 15 scopes of spec 5.1 (without proto3's unset and unknown placeholders). */
export const ALL_SCOPES: readonly ApiScope[] = Object.values(ApiScope).filter(
  (s) => s !== ApiScope.API_SCOPE_UNSPECIFIED && s !== ApiScope.UNRECOGNIZED,
);
