// Bundles src/loader.ts (and what it imports of @svc-inbox/widget-protocol) into www/loader.js: one classic script
// (IIFE, no module loader needed on the customer's page), ES2019, minified. esbuild's build API:
// https://esbuild.github.io/api/#build. The size budget is checked by widget-stencil/scripts/size.mjs.
import { build } from 'esbuild';
import { URL, fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

await build({
  entryPoints: [here('src/loader.ts')],
  outfile: here('www/loader.js'),
  bundle: true,
  format: 'iife',
  target: 'es2019',
  minify: true,
  legalComments: 'none',
  // The same bytes on every machine: the budget and the content hash must not depend on where it was built.
  sourcemap: false,
  logLevel: 'warning',
});
