export { SvcWidgetComponent, type SvcWidgetElement, type WidgetPrefill } from './svc-widget.component';
export type { InjectableWidgetConfig, VisitorIdentity, WidgetSize } from '@svc-inbox/widget-core';
