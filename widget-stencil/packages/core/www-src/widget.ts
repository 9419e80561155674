// The CDN entry, www/widget.js: defines <svc-widget> and, in the frame document, connects it to the loader.
import { defineCustomElement } from '../dist/components/svc-widget.js';
import { startFrameGlue } from './frame-glue';

// The glue listens first (synchronously, on the document), then the element is defined and renders.
const glue = startFrameGlue(window);
defineCustomElement();
void glue;
