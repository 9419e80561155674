import type { IncomingHttpHeaders } from 'node:http';
import { SIGNATURE_HEADERS } from '../auth/provider-modes';

const SCRUBBED = '[scrubbed]';

/** Credentials by name, next to every header a mode reads a signature or secret from. */
const ALWAYS_SCRUBBED: ReadonlySet<string> = new Set([
  ...SIGNATURE_HEADERS,
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

/** A header whose name contains one of these carries a credential as far as the history is concerned. */
const CREDENTIAL_NAME_PARTS = ['secret', 'signature', 'token', 'api-key', 'apikey', 'auth'] as const;

function isCredential(lowerName: string, genericHeader: string | undefined): boolean {
  return (
    ALWAYS_SCRUBBED.has(lowerName) ||
    lowerName === genericHeader ||
    CREDENTIAL_NAME_PARTS.some((part) => lowerName.includes(part))
  );
}

/**
 * Request headers for the history row with every credential and signature header replaced (spec 5.3,
 * docs/decisions/0010): the listed ones, every provider signature header, the connection's Generic HMAC header and any
 * header whose name looks like a credential. Node already gives header names in lower case.
 */
export function scrubHeaders(headers: IncomingHttpHeaders, genericHeader: string | null): Record<string, string> {
  const generic = genericHeader?.toLowerCase();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] = isCredential(lower, generic)
      ? SCRUBBED
      : (Array.isArray(value) ? value.join(', ') : value).slice(0, 1000);
  }
  return out;
}
