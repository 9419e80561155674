import { modifier } from 'ember-modifier';
import { defineSvcWidget } from '@svc-inbox/widget-core';

export { defineSvcWidget };

/**
 * A visitor identity as a string equal exactly when two identities are equal by value (keys sorted at every level),
 * so a `user` object rebuilt by a getter does not identify the visitor again. null and undefined give one key.
 */
export function identityKey(user) {
  return JSON.stringify(user ?? null, (_key, value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

const ANONYMOUS = identityKey(null);
// The key of the identity each element was last given, so the modifier calls identify() only on a real change.
const given = new WeakMap();

/**
 * `<svc-widget {{svcIdentify this.user}}>`: passes the visitor to the element's `identify()`; `null`/`undefined`
 * after a known visitor logs out. Events need no wrapper: `{{on "svc:resize" this.resized}}`.
 */
export const svcIdentify = modifier((element, [user]) => {
  defineSvcWidget();
  const key = identityKey(user);
  if (key === (given.get(element) ?? ANONYMOUS)) return;
  given.set(element, key);
  void element.identify(user ?? null);
});
