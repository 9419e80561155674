import type { VisitorIdentity } from '@svc-inbox/widget-core';

/**
 * A visitor identity as a string equal exactly when two identities are equal by value (keys sorted at every level),
 * so a `user` object rebuilt by the parent does not identify the visitor again. null and undefined give one key.
 */
export function identityKey(user: VisitorIdentity | null | undefined): string {
  return JSON.stringify(user ?? null, (_key, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
