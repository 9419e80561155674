export { SvcWidget, type SvcWidgetElement, type WidgetPrefill } from './svc-widget.js';
export type { InjectableWidgetConfig, VisitorIdentity, WidgetSize } from '@svc-inbox/widget-core';
