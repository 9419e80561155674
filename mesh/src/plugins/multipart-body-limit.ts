import { createGraphQLError } from '@graphql-tools/utils';

/** The part of Yoga's `onRequestParse` payload this file reads. */
interface ParsePayload {
  request: Request;
}
type ParseHook = (payload: ParsePayload) => unknown;

/** Room for the `operations` and `map` fields and the multipart framing around the files. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;

export function multipartRequestLimit(limits: { maxBytes: number; maxFiles: number }): number {
  return limits.maxBytes * limits.maxFiles + FORM_OVERHEAD_BYTES;
}

const CONTENT_LENGTH = /^\d+$/;

export const isMultipart = (request: Request) =>
  request.method === 'POST' && (request.headers.get('content-type') ?? '').startsWith('multipart/form-data');

/** Yoga's body-size hook (graphql-yoga `useLimitRequestBodySize`): the only parse hook that reads Content-Length. */
const isYogaBodySizeHook = (hook: ParseHook) => hook.toString().includes("headers.get('content-length')");

/**
 * Replaces Yoga's request-size check with the gateway's own limits.
 *
 * Hive Gateway (gateway-runtime 2.12.1, the latest) builds its Yoga server without `maxRequestBodySize`, so Yoga's
 * default cap applies and a request within our limits (10 files × 16 MiB) is refused with 413; no option reaches it.
 * Yoga's hook also streams every body through a `TransformStream` that counts its bytes, even when Content-Length
 * already bounds it: ~3 % of the gateway's CPU per request (docs/performance.md). So once the runtime is built, Yoga's
 * body-size hook is replaced: a non-multipart request is bounded by `useRequestLimits` (request-limits.ts: 1 MiB by
 * Content-Length before the body is read, or while it streams when it has none), which `createGateway` always
 * installs, so Yoga's hook is not run for it; a multipart request is held to `maxBytes` by its Content-Length here,
 * and file by file by the form parser's limits as it reads (which also bound a chunked request without a length).
 * Throws at start-up if Yoga's hook cannot be found exactly once, so an upgrade that changes it cannot silently bring
 * the stream back or drop the check.
 */
export function allowMultipartUploads(runtime: object, maxBytes: number): void {
  const hooks = (runtime as { onRequestParseHooks?: ParseHook[] }).onRequestParseHooks;
  const found = hooks?.flatMap((hook, index) => (isYogaBodySizeHook(hook) ? [index] : [])) ?? [];
  const index = found[0];
  if (!hooks || found.length !== 1 || index === undefined)
    throw new Error(`expected one Yoga request-size hook, found ${found.length}: re-check multipart-body-limit.ts`);
  hooks[index] = (payload) => {
    if (!isMultipart(payload.request)) return undefined;
    const length = payload.request.headers.get('content-length');
    if (length === null) return undefined;
    if (!CONTENT_LENGTH.test(length))
      throw createGraphQLError('Content-Length header is invalid.', {
        extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
      });
    if (Number(length) > maxBytes)
      throw createGraphQLError(`Request body too large: uploads take at most ${maxBytes} bytes per request`, {
        extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
      });
    return undefined;
  };
}
