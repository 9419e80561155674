import type { DataSource } from 'typeorm';
import { Conflict, InvalidArgument, NotFound, isDuplicateKeyError, newId, now } from '@svc/kit';
import { MemberRole, OrgKind } from '@svc/proto/common/v1';
import { MemberRow, OrgRow } from '../entities';
import { freeSlugFor } from './org-slugs';
import type { Passwords } from './passwords';

export interface NewOwner {
  email: string;
  name: string;
  password?: string;
}

export interface NewOrg {
  name: string;
  kind?: OrgKind;
  parentOrgId?: string;
  owner: NewOwner;
}

export interface CreatedOrg {
  org: OrgRow;
  owner: MemberRow;
  /** Set when the owner's password was generated: shown once. */
  oneTimePassword?: string;
}

/** An org whose first owner is optional (a client org may be created empty and get members later). */
export type NewOrgMaybeOwned = Omit<NewOrg, 'owner'> & { owner?: NewOwner };
export type CreatedOrgMaybeOwned = Omit<CreatedOrg, 'owner'> & { owner?: MemberRow };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed) || trimmed.length > 254)
    throw new InvalidArgument('email is not an email address', { field: 'email' });
  return trimmed;
}

/** Creates an org with its first owner (the bootstrap CLI, the demo seed). */
export async function createOrgWithOwner(
  dataSource: DataSource,
  passwords: Passwords,
  input: NewOrg,
): Promise<CreatedOrg> {
  const created = await createOrg(dataSource, passwords, input);
  return { ...created, owner: created.owner as MemberRow };
}

export const MAX_ORG_NAME_LENGTH = 200;

/** Creates an org, with its first owner when one is given (partner provisioning: `createClientOrg`). */
export async function createOrg(
  dataSource: DataSource,
  passwords: Passwords,
  input: NewOrgMaybeOwned,
): Promise<CreatedOrgMaybeOwned> {
  const name = input.name.trim();
  if (!name) throw new InvalidArgument('org name is required', { field: 'name' });
  if (name.length > MAX_ORG_NAME_LENGTH)
    throw new InvalidArgument(`org name must be at most ${MAX_ORG_NAME_LENGTH} characters`, { field: 'name' });
  const at = now();
  const owner = input.owner ? await ownerToInsert(passwords, input.owner, at) : undefined;
  // A unique index refuses a duplicate email or slug: the email is the caller's to fix, a slug another org took
  // between reading and inserting is picked again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await insertOrgWithOwner(dataSource, { ...input, name }, owner);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (owner && (await dataSource.getRepository(MemberRow).existsBy({ email: owner.email })))
        throw new Conflict('a member with this email already exists', { field: 'email' });
      if (attempt >= SLUG_ATTEMPTS)
        throw new Conflict('orgs of the same name were created at the same time; try again', { field: 'name' });
    }
  }
}

async function ownerToInsert(passwords: Passwords, input: NewOwner, at: Date): Promise<OwnerToInsert> {
  const email = normaliseEmail(input.email);
  const oneTimePassword = input.password ? undefined : passwords.generate();
  const passwordHash = await passwords.hash(input.password ?? (oneTimePassword as string));
  return { email, passwordHash, at, oneTimePassword };
}

const SLUG_ATTEMPTS = 3;

interface OwnerToInsert {
  email: string;
  passwordHash: string;
  at: Date;
  oneTimePassword: string | undefined;
}

async function insertOrgWithOwner(
  dataSource: DataSource,
  input: NewOrgMaybeOwned,
  owner: OwnerToInsert | undefined,
): Promise<CreatedOrgMaybeOwned> {
  const at = owner?.at ?? now();
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
    if (!owner || !input.owner) return { org };
    const member = manager.create(MemberRow, {
      id: newId(at),
      orgId: org.id,
      email: owner.email,
      name: input.owner.name.trim() || owner.email,
      role: MemberRole.OWNER,
      passwordHash: owner.passwordHash,
      createdAt: at,
    });
    await manager.insert(MemberRow, member);
    return { org, owner: member, ...(owner.oneTimePassword ? { oneTimePassword: owner.oneTimePassword } : {}) };
  });
}
