import * as fs from 'node:fs';
import * as path from 'node:path';
import Router from '@koa/router';
import { send } from '@koa/send';

/** widget-stencil/scripts/assemble.mjs writes it: every file of the CDN directory and whether its name is hashed. */
interface AssetManifest {
  files: Record<string, { size: number; sha256: string; immutable: boolean }>;
}

/**
 * Cache rules of the widget's files (decision 0110; the nginx image of widget-stencil/Dockerfile has the same):
 * content-hashed names never change, so a year and `immutable`; loader.js is fetched by every page view of every
 * customer site, so a few minutes, then revalidated by its ETag; widget.js names this release's hashed chunks, so it
 * is revalidated on every use (a stale one would ask for chunks a new release no longer has).
 */
export const CACHE_CONTROL = {
  immutable: 'public, max-age=31536000, immutable',
  'loader.js': 'public, max-age=300',
  other: 'no-cache',
} as const;

function cacheControl(file: string, immutable: boolean): string {
  if (immutable) return CACHE_CONTROL.immutable;
  return file === 'loader.js' ? CACHE_CONTROL['loader.js'] : CACHE_CONTROL.other;
}

/**
 * `GET /widget/*`: the assembled CDN directory (`npm run build`), only the files its manifest lists. Public files any
 * site may load, so `Access-Control-Allow-Origin: *` (module scripts are fetched in CORS mode when the frame document
 * and the CDN are on different origins) and `Cross-Origin-Resource-Policy: cross-origin`; `nosniff` so a browser runs
 * them only as the JavaScript they are labelled.
 */
export function widgetAssetRoutes(dir: string): Router {
  const router = new Router({ prefix: '/widget' });
  const manifest = manifestReader(path.join(dir, 'asset-manifest.json'));
  router.get('/{*file}', async (ctx) => {
    const file = ctx.params.file ?? '';
    const entry = Object.hasOwn(manifest().files, file) ? manifest().files[file] : undefined;
    if (!entry) return; // 404
    ctx.status = 200;
    ctx.set({
      etag: `"${Buffer.from(entry.sha256, 'hex').toString('base64url').slice(0, 27)}"`,
      'cache-control': cacheControl(file, entry.immutable),
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
      vary: 'Accept-Encoding',
    });
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    // The JavaScript MIME type of the HTML standard (module scripts are refused without a JavaScript type).
    if (file.endsWith('.js')) ctx.type = 'text/javascript; charset=utf-8';
    await send(ctx, file, { root: dir, gzip: false, brotli: false, hidden: false });
  });
  return router;
}

/** Re-read when the file changes (a rebuild while the stack runs); no manifest, no files. */
function manifestReader(file: string): () => AssetManifest {
  let seen = { mtimeMs: -1, manifest: { files: {} } as AssetManifest };
  return () => {
    const mtimeMs = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    if (mtimeMs !== seen.mtimeMs) {
      seen = {
        mtimeMs,
        manifest: mtimeMs ? (JSON.parse(fs.readFileSync(file, 'utf8')) as AssetManifest) : { files: {} },
      };
    }
    return seen.manifest;
  };
}
