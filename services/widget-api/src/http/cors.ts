/**
 * CORS of widget-api (docs/decisions/0089). A browser request carrying an `Origin` is answered only when that origin
 * is one of the integration's allowed origins or the widget's own origin; anything else gets 403 without CORS
 * headers, before any work. A request without `Origin` (a server, curl) is not a browser's cross-origin call and is
 * served. Preflights are answered for any origin: they carry no credential and change nothing, and the integration is
 * often not known yet (the public key is in the body); the real request is checked.
 */
export const ALLOWED_HEADERS = 'authorization, content-type, last-event-id, x-file-name, if-none-match';
export const EXPOSED_HEADERS = 'etag, retry-after';
export const ALLOWED_METHODS = 'GET, POST, OPTIONS';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/** Whether a browser at `origin` may call for an integration with these allowed origins. */
export function originAllowed(origin: string, allowedOrigins: readonly string[], widgetOrigin: string): boolean {
  const normalised = normaliseOrigin(origin);
  if (!normalised) return false;
  if (widgetOrigin && normalised === normaliseOrigin(widgetOrigin)) return true;
  return allowedOrigins.some((allowed) => normaliseOrigin(allowed) === normalised);
}

/** `scheme://host[:port]` lower-cased, default ports dropped; undefined for anything that is not an http(s) origin. */
export function normaliseOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
    return url.origin.toLowerCase();
  } catch {
    return undefined;
  }
}

/** The headers of an answer to an allowed origin. */
export function corsHeaders(origin: string): Record<string, string> {
  return { 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSED_HEADERS, vary: 'Origin' };
}

export function preflightHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': ALLOWED_METHODS,
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': PREFLIGHT_MAX_AGE_SECONDS,
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
}
