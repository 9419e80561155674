import type { DataSource } from 'typeorm';
import { Conflict, InvalidArgument, NotFound, isDuplicateKeyError, newId, now } from '@svc/kit';
import { MemberRole, OrgKind } from '@svc/proto/common/v1';
import { MemberRow, OrgRow } from '../entities';
import { freeSlugFor } from './org-slugs';
import type { Passwords } from './passwords';

export interface NewOrg {
  name: string;
  kind?: OrgKind;
  parentOrgId?: string;
  owner: { email: string; name: string; password?: string };
}

export interface CreatedOrg {
  org: OrgRow;
  owner: MemberRow;
  /** Set when the owner's password was generated: shown once. */
  oneTimePassword?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed) || trimmed.length > 254)
    throw new InvalidArgument('email is not an email address', { field: 'email' });
  return trimmed;
}

/** Creates an org with its first owner (the bootstrap CLI, the demo seed, partner provisioning). */
export async function createOrgWithOwner(
  dataSource: DataSource,
  passwords: Passwords,
  input: NewOrg,
): Promise<CreatedOrg> {
  const name = input.name.trim();
  if (!name) throw new InvalidArgument('org name is required', { field: 'name' });
  const email = normaliseEmail(input.owner.email);
  const oneTimePassword = input.owner.password ? undefined : passwords.generate();
  const passwordHash = await passwords.hash(input.owner.password ?? (oneTimePassword as string));
  const at = now();
  // A unique index refuses a duplicate email or slug: the email is the caller's to fix, a slug another org took
  // between reading and inserting is picked again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await insertOrgWithOwner(dataSource, { ...input, name }, { email, passwordHash, at, oneTimePassword });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (attempt >= SLUG_ATTEMPTS || (await dataSource.getRepository(MemberRow).existsBy({ email })))
        throw new Conflict('a member with this email already exists', { field: 'email' });
    }
  }
}

const SLUG_ATTEMPTS = 3;

async function insertOrgWithOwner(
  dataSource: DataSource,
  input: NewOrg,
  owner: { email: string; passwordHash: string; at: Date; oneTimePassword: string | undefined },
): Promise<CreatedOrg> {
  const { email, passwordHash, at, oneTimePassword } = owner;
  return dataSource.transaction(async (manager) => {
    if (input.parentOrgId) {
      const parent = await manager.findOneBy(OrgRow, { id: input.parentOrgId });
      if (!parent) throw new NotFound('parent org not found');
    }
    const org = manager.create(OrgRow, {
      id: newId(at),
      name: input.name,
      slug: await freeSlugFor(manager, input.name),
      kind: input.kind ?? OrgKind.STANDARD,
      parentOrgId: input.parentOrgId ?? null,
      createdAt: at,
    });
    await manager.insert(OrgRow, org);
    const member = manager.create(MemberRow, {
      id: newId(at),
      orgId: org.id,
      email,
      name: input.owner.name.trim() || email,
      role: MemberRole.OWNER,
      passwordHash,
      createdAt: at,
    });
    await manager.insert(MemberRow, member);
    return { org, owner: member, ...(oneTimePassword ? { oneTimePassword } : {}) };
  });
}
