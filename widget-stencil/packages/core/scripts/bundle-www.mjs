// Bundles the CDN files from Stencil's dist-custom-elements output (decision 0105): www/widget.js (stable name, an
// ES module) and content-hashed chunks, one per locale, fetched only when chosen. esbuild's code splitting and
// `chunkNames` are documented at esbuild.github.io/api/#splitting and /#chunk-names.
import { build } from 'esbuild';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
await rm(`${root}/www`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: { widget: 'www-src/widget.ts' },
  outdir: 'www',
  bundle: true,
  splitting: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  // Stencil's runtime names its internal fields `$name$` so that minifiers may shorten them (its own build does).
  mangleProps: /^\$.+\$$/,
  chunkNames: 'chunk.[hash]',
  entryNames: '[name]',
  logLevel: 'warning',
});
