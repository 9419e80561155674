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
 * Lets multipart uploads use the gateway's own upload limits instead of Yoga's 25 MB request cap.
 *
 * Hive Gateway (gateway-runtime 2.12.1, the latest) builds its Yoga server without `maxRequestBodySize`, so Yoga's
 * default cap applies and a request within our limits (10 files × 16 MiB) is refused with 413; no option reaches it.
 * So once the runtime is built, Yoga's body-size hook is wrapped: every non-multipart request still goes through it
 * (25 MB; JSON bodies are held to 1 MiB before it by request-limits.ts), while a multipart request is held to `maxBytes` by its Content-Length here, and file by
 * file by the form parser's limits as it reads (which also bound a chunked request without a length). Throws at
 * start-up if Yoga's hook cannot be found exactly once, so an upgrade that changes it cannot silently drop the check.
 */
export function allowMultipartUploads(runtime: object, maxBytes: number): void {
  const hooks = (runtime as { onRequestParseHooks?: ParseHook[] }).onRequestParseHooks;
  const found = hooks?.flatMap((hook, index) => (isYogaBodySizeHook(hook) ? [index] : [])) ?? [];
  const index = found[0];
  const yogaHook = index === undefined ? undefined : hooks?.[index];
  if (!hooks || found.length !== 1 || index === undefined || !yogaHook)
    throw new Error(`expected one Yoga request-size hook, found ${found.length}: re-check multipart-body-limit.ts`);
  hooks[index] = (payload) => {
    if (!isMultipart(payload.request)) return yogaHook(payload);
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
