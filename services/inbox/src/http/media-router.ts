import Router from '@koa/router';
import type { DataSource } from 'typeorm';
import { MediaRow } from '../entities';
import { isInlineSafe } from '../domain/media-types';
import type { MediaLinks } from '../domain/media-links';
import type { BlobStore } from '../storage/blob-store';

/**
 * `GET /media/:mediaId?expires=&signature=`: the bytes behind a signed link. The link is the credential (like an
 * object store's presigned URL), so it works in an <img> tag; the response can never run as a page: a sandboxing
 * CSP, nosniff, and anything but images, video, audio and PDF as a download.
 */
export function mediaRouter(dataSource: DataSource, blobs: BlobStore, links: MediaLinks): Router {
  const router = new Router();
  router.get('/media/:mediaId', async (ctx) => {
    const fail = (status: number, code: string, message: string) => {
      ctx.status = status;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { code, message };
    };
    const { mediaId } = ctx.params;
    const expires = typeof ctx.query.expires === 'string' ? ctx.query.expires : '';
    const signature = typeof ctx.query.signature === 'string' ? ctx.query.signature : '';
    if (!mediaId || !/^[0-9a-f]{24}$/.test(mediaId)) return fail(404, 'NOT_FOUND', 'media not found');
    const verdict = links.verify(mediaId, expires, signature);
    if (verdict === 'expired')
      return fail(403, 'LINK_EXPIRED', 'the link has expired; read the media again for a fresh one');
    if (verdict === 'invalid') return fail(403, 'FORBIDDEN', 'the link signature is not valid');
    const row = await dataSource.manager.findOneBy(MediaRow, { id: mediaId });
    const stream = row ? await blobs.open(row.blobKey) : undefined;
    if (!row || !stream) return fail(404, 'NOT_FOUND', 'media not found');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.set(
      'Cache-Control',
      `private, max-age=${Math.max(0, Number(expires) - Math.floor(Date.now() / 1000))}, immutable`,
    );
    ctx.set('ETag', `"${row.sha256}"`);
    ctx.attachment(row.fileName, { type: isInlineSafe(row.contentType) ? 'inline' : 'attachment' });
    ctx.type = row.contentType;
    ctx.length = row.sizeBytes;
    if (ctx.fresh) {
      stream.destroy();
      ctx.status = 304;
      return;
    }
    ctx.body = stream;
  });
  return router;
}
