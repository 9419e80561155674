import { NotFound } from '@svc/kit';
import { requireId } from './lookups';

/**
 * Who may be given work. Members (operators) are owned by identity; the inbox asks it rather than keeping a copy,
 * so a member removed a moment ago can no longer be assigned (docs/decisions/0034-assignees-and-contact-conflicts.md).
 */
export interface MemberDirectory {
  /** The ids among `memberIds` that are members of the org now (a removed member, or another org's, is not). */
  membersOf(orgId: string, memberIds: string[]): Promise<string[]>;
  /**
   * What a visitor may see of the org's members: display name and avatar by member id (a removed member is absent).
   * May be a minute old (cached per org); empty when identity cannot answer.
   */
  profilesOf(orgId: string): Promise<ReadonlyMap<string, MemberProfile>>;
}

export interface MemberProfile {
  displayName: string;
  avatarUrl: string;
}

/**
 * Fails with NOT_FOUND (naming `field`) unless `operatorId` is a member of the org, like any other id of the input
 * that names nothing of the caller's org; BAD_USER_INPUT when it is not an id at all.
 */
export async function requireMember(
  members: MemberDirectory,
  orgId: string,
  operatorId: string,
  field = 'operatorId',
): Promise<void> {
  requireId(operatorId, field);
  const found = await members.membersOf(orgId, [operatorId]);
  if (!found.includes(operatorId)) throw new NotFound('operator not found: not a member of this org', { field });
}
