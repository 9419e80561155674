import { modifier } from 'ember-modifier';
import { defineSvcWidget } from '@svc-inbox/widget-core';
import { identityKey } from '@svc-inbox/widget-protocol';

export { defineSvcWidget };

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
