import type { FunctionBasedModifier } from 'ember-modifier';
import type { VisitorIdentity } from '@svc-inbox/widget-core';

export { defineSvcWidget } from '@svc-inbox/widget-core';

/** `<svc-widget {{svcIdentify this.user}}>`: calls the element's `identify()` when the visitor changes by value. */
export declare const svcIdentify: FunctionBasedModifier<{
  Element: HTMLElement & { identify(user: VisitorIdentity | null): Promise<void> };
  Args: { Positional: [user: VisitorIdentity | null | undefined] };
}>;
