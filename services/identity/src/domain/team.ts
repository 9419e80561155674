import { In, IsNull, type DataSource, type Repository } from 'typeorm';
import {
  Conflict,
  FailedPrecondition,
  Forbidden,
  InvalidArgument,
  NotFound,
  enqueueEvents,
  isDuplicateKeyError,
  isId,
  newId,
  now,
  requireOrg,
  requireScope,
  requireSystem,
  type OutboxRelay,
  type Principal,
} from '@svc/kit';
import { ApiScope, MemberRole, PrincipalKind } from '@svc/proto/common/v1';
import type { AddMemberDirectResponse, TeamMember } from '@svc/proto/identity/v1';
import { MemberRow, SessionRow } from '../entities';
import { normaliseEmail } from './orgs';
import type { Passwords } from './passwords';
import { memberView } from './views';

const PRIVILEGED = new Set([MemberRole.OWNER, MemberRole.ADMIN]);
/** Most ids one FindMembers call may ask about (a flow has at most 50 steps). */
export const MAX_FIND_MEMBERS = 100;
/** `member.removed`: the inbox unassigns the removed member's chats (docs/decisions/0034). */
export const MEMBERS_TOPIC = 'svc.identity.members.v1';

/** TEAM_READ / TEAM_MANAGE. A key may only manage agents; only an owner may create or promote an owner. */
export class Team {
  constructor(
    private readonly dataSource: DataSource,
    private readonly passwords: Passwords,
    private readonly relay: () => OutboxRelay,
  ) {}

  async list(principal: Principal): Promise<TeamMember[]> {
    requireScope(principal, ApiScope.TEAM_READ);
    const rows = await this.dataSource
      .getRepository(MemberRow)
      .find({ where: { orgId: principal.orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return rows.map(memberView);
  }

  /**
   * The ids among `memberIds` that are members of the principal's org (SYSTEM callers: the inbox and flows check an
   * assignee). A removed member is deleted, so it is simply not found; malformed ids are never members.
   */
  async find(principal: Principal, memberIds: string[]): Promise<string[]> {
    requireSystem(principal);
    const orgId = requireOrg(principal);
    if (memberIds.length > MAX_FIND_MEMBERS)
      throw new InvalidArgument(`at most ${MAX_FIND_MEMBERS} member ids per call`, { field: 'memberIds' });
    const ids = [...new Set(memberIds.filter(isId))];
    if (!ids.length) return [];
    const rows = await this.dataSource
      .getRepository(MemberRow)
      .find({ select: { id: true }, where: { orgId, id: In(ids) } });
    return rows.map((row) => row.id);
  }

  async add(
    principal: Principal,
    input: { email: string; name: string; role: MemberRole; password?: string | undefined },
  ): Promise<AddMemberDirectResponse> {
    requireScope(principal, ApiScope.TEAM_MANAGE);
    this.checkMayGrant(principal, input.role);
    const oneTimePassword = input.password ? undefined : this.passwords.generate();
    const row = this.dataSource.getRepository(MemberRow).create({
      id: newId(),
      orgId: principal.orgId,
      email: normaliseEmail(input.email),
      name: input.name.trim() || input.email.trim(),
      role: input.role,
      passwordHash: await this.passwords.hash(input.password ?? (oneTimePassword as string)),
      createdAt: now(),
    });
    try {
      await this.dataSource.getRepository(MemberRow).insert(row);
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new Conflict('a member with this email already exists', { field: 'email' });
      throw error;
    }
    return { member: memberView(row), oneTimePassword };
  }

  async updateRole(principal: Principal, memberId: string, role: MemberRole): Promise<TeamMember> {
    requireScope(principal, ApiScope.TEAM_MANAGE);
    this.checkMayGrant(principal, role);
    return this.dataSource.transaction(async (manager) => {
      const row = await manager.findOneBy(MemberRow, { id: memberId, orgId: principal.orgId });
      if (!row) throw new NotFound('member not found', { field: 'memberId' });
      this.checkMayChange(principal, row);
      if (row.role === MemberRole.OWNER && role !== MemberRole.OWNER)
        await this.keepAnOwner(manager.getRepository(MemberRow), row);
      row.role = role;
      await manager.update(MemberRow, { id: row.id }, { role });
      return memberView(row);
    });
  }

  /**
   * Deletes the member and ends their sessions; `member.removed` is enqueued in the same transaction, so it is
   * published if and only if the removal commits, and the inbox then unassigns their chats (eventually).
   */
  async remove(principal: Principal, memberId: string): Promise<void> {
    requireScope(principal, ApiScope.TEAM_MANAGE);
    await this.dataSource.transaction(async (manager) => {
      const row = await manager.findOneBy(MemberRow, { id: memberId, orgId: principal.orgId });
      if (!row) throw new NotFound('member not found', { field: 'memberId' });
      this.checkMayChange(principal, row);
      if (row.role === MemberRole.OWNER) await this.keepAnOwner(manager.getRepository(MemberRow), row);
      await manager.delete(MemberRow, { id: row.id });
      const at = now();
      await manager.update(SessionRow, { memberId: row.id, endedAt: IsNull() }, { endedAt: at });
      await enqueueEvents(
        manager,
        [
          {
            topic: MEMBERS_TOPIC,
            key: row.id,
            type: 'member.removed',
            orgId: row.orgId,
            payload: { member: { memberId: row.id } },
          },
        ],
        at,
      );
    });
    this.relay().nudge();
  }

  private checkMayGrant(principal: Principal, role: MemberRole): void {
    if (![MemberRole.OWNER, MemberRole.ADMIN, MemberRole.AGENT].includes(role)) {
      throw new InvalidArgument('role must be OWNER, ADMIN or AGENT', { field: 'role' });
    }
    if (principal.kind === PrincipalKind.API_KEY && PRIVILEGED.has(role)) {
      throw new Forbidden('an API key may never create or promote an ADMIN or OWNER');
    }
    if (
      role === MemberRole.OWNER &&
      principal.kind === PrincipalKind.MEMBER_SESSION &&
      principal.role !== MemberRole.OWNER
    ) {
      throw new Forbidden('only an owner may make another owner');
    }
  }

  private checkMayChange(principal: Principal, target: MemberRow): void {
    if (principal.kind === PrincipalKind.API_KEY && PRIVILEGED.has(target.role)) {
      throw new Forbidden('an API key may only manage agents');
    }
    if (
      target.role === MemberRole.OWNER &&
      principal.kind === PrincipalKind.MEMBER_SESSION &&
      principal.role !== MemberRole.OWNER
    ) {
      throw new Forbidden('only an owner may change an owner');
    }
  }

  private async keepAnOwner(members: Repository<MemberRow>, leaving: MemberRow): Promise<void> {
    const owners = await members.countBy({ orgId: leaving.orgId, role: MemberRole.OWNER });
    if (owners <= 1) throw new FailedPrecondition('an org must keep at least one owner');
  }
}
