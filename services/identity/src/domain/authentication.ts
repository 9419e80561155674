import type { DataSource } from 'typeorm';
import { Forbidden, Unauthenticated, newId, now } from '@svc/kit';
import { ApiScope, MemberRole, OrgKind, PrincipalKind, type Principal } from '@svc/proto/common/v1';
import type { DashboardSession } from '@svc/proto/identity/v1';
import { ClientOrgStatus } from '@svc/proto/identity/v1/client_orgs';
import { ApiKeyRow, MemberRow, OrgRow, SessionRow } from '../entities';
import { hashSecret, parseCredential, secretMatches } from './credentials';
import type { LoginThrottle } from './login-throttle';
import { normaliseEmail } from './orgs';
import type { Passwords } from './passwords';
import { scopesOfRole } from './role-scopes';
import { memberView, orgView } from './views';
import { randomBytes } from 'node:crypto';

const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** `last_used_at` is advisory; writing it at most once a minute keeps authentication read-only on the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;
const INVALID = 'invalid, unknown or revoked credentials';

export class Authentication {
  constructor(
    private readonly dataSource: DataSource,
    private readonly passwords: Passwords,
    private readonly throttle: LoginThrottle,
  ) {}

  async authenticate(credential: string, actAsOrgId: string): Promise<Principal> {
    const parsed = parseCredential(credential);
    if (!parsed) throw new Unauthenticated(INVALID);
    const principal =
      parsed.kind === 'key'
        ? await this.keyPrincipal(parsed.id, parsed.secret)
        : await this.sessionPrincipal(parsed.id, parsed.secret);
    return actAsOrgId && actAsOrgId !== principal.orgId ? this.actAs(principal, actAsOrgId) : principal;
  }

  /** `clientAddress`: where the attempt came from, as the gateway saw it ('' when unknown: only the email counts). */
  async login(email: string, password: string, clientAddress = ''): Promise<DashboardSession> {
    const holders = this.throttle.holders(normaliseEmail(email), clientAddress);
    await this.throttle.reserve(holders);
    const member = await this.dataSource.getRepository(MemberRow).findOneBy({ email: normaliseEmail(email) });
    // Compare against a dummy hash when the member is unknown so timing does not reveal which emails exist.
    const ok = await this.passwords.verify(password, member?.passwordHash ?? DUMMY_HASH);
    if (!member || !ok) throw new Unauthenticated('wrong email or password');
    await this.throttle.refund(holders);
    const org = await this.dataSource.getRepository(OrgRow).findOneByOrFail({ id: member.orgId });
    const at = now();
    const id = newId(at);
    const secret = randomBytes(32).toString('base64url');
    const session = this.dataSource.getRepository(SessionRow).create({
      id,
      orgId: org.id,
      memberId: member.id,
      secretHash: hashSecret(secret),
      createdAt: at,
      expiresAt: new Date(at.getTime() + SESSION_TTL_MS),
      endedAt: null,
    });
    await this.dataSource.getRepository(SessionRow).insert(session);
    return {
      token: `sess_${id}_${secret}`,
      member: memberView(member),
      org: orgView(org),
      expiresAt: session.expiresAt.toISOString(),
    };
  }

  async logout(principal: Principal): Promise<void> {
    if (principal.kind !== PrincipalKind.MEMBER_SESSION)
      throw new Forbidden('logout ends a dashboard session; API keys are revoked instead');
    await this.dataSource.getRepository(SessionRow).update({ id: principal.sessionId }, { endedAt: now() });
  }

  private async keyPrincipal(id: string, secret: string): Promise<Principal> {
    const keys = this.dataSource.getRepository(ApiKeyRow);
    const key = await keys.findOneBy({ id });
    if (!key || key.revokedAt || !secretMatches(secret, key.secretHash)) throw new Unauthenticated(INVALID);
    const org = await this.activeOrg(key.orgId);
    const at = now();
    if (!key.lastUsedAt || at.getTime() - key.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
      await keys.update({ id }, { lastUsedAt: at });
    }
    return {
      kind: PrincipalKind.API_KEY,
      orgId: org.id,
      orgKind: org.kind,
      keyId: key.id,
      memberId: '',
      role: MemberRole.MEMBER_ROLE_UNSPECIFIED,
      // PARTNER_ADMIN unlocks nothing on an org that is not a tech provider.
      scopes: org.kind === OrgKind.TECH_PROVIDER ? key.scopes : key.scopes.filter((s) => s !== ApiScope.PARTNER_ADMIN),
      sessionId: '',
      visitorContactId: '',
      visitorChannelId: '',
    };
  }

  private async sessionPrincipal(id: string, secret: string): Promise<Principal> {
    const session = await this.dataSource.getRepository(SessionRow).findOneBy({ id });
    if (
      !session ||
      session.endedAt ||
      session.expiresAt.getTime() <= Date.now() ||
      !secretMatches(secret, session.secretHash)
    ) {
      throw new Unauthenticated(INVALID);
    }
    const member = await this.dataSource.getRepository(MemberRow).findOneBy({ id: session.memberId });
    if (!member) throw new Unauthenticated(INVALID);
    const org = await this.activeOrg(member.orgId);
    return {
      kind: PrincipalKind.MEMBER_SESSION,
      orgId: org.id,
      orgKind: org.kind,
      keyId: '',
      memberId: member.id,
      role: member.role,
      scopes: scopesOfRole(member.role, org.kind),
      sessionId: session.id,
      visitorContactId: '',
      visitorChannelId: '',
    };
  }

  /** The credential's org, refused from the moment its deprovisioning starts (docs/decisions/0212). */
  private async activeOrg(orgId: string): Promise<OrgRow> {
    const org = await this.dataSource.getRepository(OrgRow).findOneBy({ id: orgId });
    if (!org || org.status !== ClientOrgStatus.ACTIVE) throw new Unauthenticated(INVALID);
    return org;
  }

  /** `X-Svc-Org`: a TECH_PROVIDER's principal acting on one of its managed child orgs. */
  private async actAs(principal: Principal, childOrgId: string): Promise<Principal> {
    const child = await this.dataSource.getRepository(OrgRow).findOneBy({ id: childOrgId });
    if (
      principal.orgKind !== OrgKind.TECH_PROVIDER ||
      !child ||
      child.parentOrgId !== principal.orgId ||
      child.status !== ClientOrgStatus.ACTIVE
    ) {
      throw new Forbidden("X-Svc-Org must name a managed child org of the caller's tech-provider org");
    }
    return {
      ...principal,
      orgId: child.id,
      orgKind: child.kind,
      scopes: principal.scopes.filter((s) => s !== ApiScope.PARTNER_ADMIN),
    };
  }
}

const DUMMY_HASH = '$2b$10$CwTycUXWue0Thq9StjUM0uJ8.M0B3qiIY1W0Q/1JZPZfyy4pu6i3K';
