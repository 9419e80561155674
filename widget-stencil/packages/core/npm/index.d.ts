// Types of @svc-inbox/widget-core. Importing them also declares, globally, `HTMLSvcWidgetElement`, its event map
// (`svc:resize` → `{ width, height }`, `svc:open`, `svc:close`, `svc:unread` → `{ count }`) and the
// `'svc-widget'` entry of `HTMLElementTagNameMap` (from Stencil's generated components.d.ts).
import type { Components, JSX, SvcWidgetCustomEvent } from '../dist/types/components';

export type { Components, JSX, SvcWidgetCustomEvent };
export type { VisitorIdentity } from '@svc-inbox/widget-protocol';
export type { WidgetSize } from '../dist/types/layout';
export type { WidgetConfig as InjectableWidgetConfig } from '../dist/types/live';

/** The element class (the one `defineSvcWidget()` registers). */
export declare const SvcWidget: {
  prototype: HTMLSvcWidgetElement;
  new (): HTMLSvcWidgetElement;
};

/** Defines `<svc-widget>` on the page's registry once; later calls (and other copies) do nothing. */
export declare function defineSvcWidget(): void;
