// What the CDN directory widget-stencil/dist/widget/ holds, shared by assemble.mjs, size.mjs and the stack's static
// route (decision 0110): which names are content-hashed (cached for a year, immutable) and which are stable.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const widgetStencil = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const cdnDir = path.join(widgetStencil, 'dist', 'widget');
export const MANIFEST = 'asset-manifest.json';

/**
 * A content hash in the name, as the bundlers write it: `chunk-5XK2QZ7A.js`, `en.5xk2qz7a.js` (esbuild: 8+ characters
 * of upper-case base32; Stencil: lower-case hex). Everything else (loader.js, widget.js) keeps its name across
 * releases and must be revalidated.
 */
export function isContentHashed(file) {
  return /[.-](?:[A-Z0-9]{8,}|[a-f0-9]{8,})\.[a-z]+$/.test(path.basename(file));
}

/** Every file under `dir`, as `/`-separated paths relative to it, sorted. */
export function listFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}
