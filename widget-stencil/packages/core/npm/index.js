// The bundler entry of @svc-inbox/widget-core: the element compiled by Stencil's dist-custom-elements target.
import { SvcWidget, defineCustomElement } from '../dist/components/svc-widget.js';

/** Defines `<svc-widget>` on the page's registry once; later calls (and other copies) do nothing. */
export function defineSvcWidget() {
  defineCustomElement();
}

export { SvcWidget };
