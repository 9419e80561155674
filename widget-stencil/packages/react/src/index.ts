export { SvcWidget, type SvcWidgetElement, type SvcWidgetProps } from './svc-widget.js';
export type { InjectableWidgetConfig, VisitorIdentity, WidgetSize } from '@svc-inbox/widget-core';
export type { Prefill } from '@svc-inbox/widget-protocol';
