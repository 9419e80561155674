export { SvcWidget, type SvcWidgetElement, type SvcWidgetProps } from './svc-widget.js';
export { identityKey } from './identity-key.js';
export type { InjectableWidgetConfig, VisitorIdentity, WidgetSize } from '@svc-inbox/widget-core';
