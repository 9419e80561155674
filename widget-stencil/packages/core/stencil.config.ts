import { type Config } from '@stencil/core';

// Stencil 4.45 (stenciljs.com/docs/custom-elements): `dist-custom-elements` compiles the element to a class that
// extends HTMLElement, with an idempotent `defineCustomElement()`; `externalRuntime: false` bundles Stencil's
// runtime into it so consumers need no @stencil/core. The CDN files (www/widget.js and its hashed chunks) are
// bundled from this output by scripts/bundle-www.mjs (decision 0105).
export const config: Config = {
  namespace: 'svc-widget',
  srcDir: 'src',
  buildEs5: false,
  sourceMap: false,
  outputTargets: [
    {
      type: 'dist-custom-elements',
      dir: 'dist/components',
      externalRuntime: false,
      customElementsExportBehavior: 'default',
      generateTypeDeclarations: true,
      minify: false,
    },
  ],
};
