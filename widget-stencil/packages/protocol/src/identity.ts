import { hasOnlyKeys, isOptionalText, isPlainObject } from './shape.js';

/** Spec 2.4: a known visitor's proof (one of three, see {@link decidingProof}) and the profile it claims. */
export interface VisitorIdentity {
  googleIdToken?: string;
  jwt?: string;
  userId?: string;
  userHash?: string;
  name?: string;
  email?: string;
  phone?: string;
  attributes?: Record<string, unknown>;
}

/** Spec 4.4: the unverified prechat prefill (`Svc('prefill', …)`, `svcSettings.prefill`). */
export interface Prefill {
  name?: string;
  email?: string;
  phone?: string;
}

/** A proof's name; `userHash` stands for the `userId` + `userHash` pair. */
export type ProofKind = 'googleIdToken' | 'jwt' | 'userHash';

const TEXT_FIELDS = ['googleIdToken', 'jwt', 'userId', 'userHash', 'name', 'email', 'phone'] as const;
const IDENTITY_FIELDS: readonly string[] = [...TEXT_FIELDS, 'attributes'];
const PREFILL_FIELDS = ['name', 'email', 'phone'] as const;

/**
 * The proof that decides, as widget-api decides it: `googleIdToken`, else `jwt`, else `userId` + `userHash`. Only
 * that one is checked by the server; weaker proofs sent with it are ignored.
 */
export function decidingProof(identity: VisitorIdentity): ProofKind | null {
  if (identity.googleIdToken !== undefined) return 'googleIdToken';
  if (identity.jwt !== undefined) return 'jwt';
  if (identity.userId !== undefined && identity.userHash !== undefined) return 'userHash';
  return null;
}

/**
 * A VisitorIdentity the server can act on: only the spec's fields, every string non-blank, `attributes` a plain
 * object, `userId` and `userHash` together or not at all, and at least one proof.
 */
export function isVisitorIdentity(value: unknown): value is VisitorIdentity {
  if (!isPlainObject(value) || !hasOnlyKeys(value, IDENTITY_FIELDS)) return false;
  if (!TEXT_FIELDS.every((field) => isOptionalText(value, field))) return false;
  if (value.attributes !== undefined && !isPlainObject(value.attributes)) return false;
  if ((value.userId === undefined) !== (value.userHash === undefined)) return false;
  return decidingProof(value) !== null;
}

export function isPrefill(value: unknown): value is Prefill {
  return (
    isPlainObject(value) &&
    hasOnlyKeys(value, PREFILL_FIELDS) &&
    PREFILL_FIELDS.every((field) => isOptionalText(value, field))
  );
}

/**
 * An identity as a string that is equal exactly when two identities are equal by value (object keys sorted at every
 * level); `null` and `undefined` (anonymous) give the same key. The framework wrappers call `identify()` only when it
 * changes, so a `user` object rebuilt on every render does not start a new session (decision 0117).
 */
export function identityKey(identity: VisitorIdentity | null | undefined): string {
  return JSON.stringify(identity ?? null, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
