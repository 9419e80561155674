import type { FunctionBasedModifier } from 'ember-modifier';
import type { VisitorIdentity } from '@svc-inbox/widget-core';

export { defineSvcWidget } from '@svc-inbox/widget-core';

/** The identity as a string equal exactly when two identities are equal by value. */
export declare function identityKey(user: VisitorIdentity | null | undefined): string;

/** `<svc-widget {{svcIdentify this.user}}>`: calls the element's `identify()` when the visitor changes by value. */
export declare const svcIdentify: FunctionBasedModifier<{
  Element: HTMLElement & { identify(user: VisitorIdentity | null): Promise<void> };
  Args: { Positional: [user: VisitorIdentity | null | undefined] };
}>;
