import type { IncomingHttpHeaders } from 'node:http';
import { SIGNATURE_HEADERS } from '../auth/provider-modes';

const SCRUBBED = '[scrubbed]';
const ALWAYS_SCRUBBED: ReadonlySet<string> = new Set(SIGNATURE_HEADERS);

/** Request headers for the history row with every credential and signature header replaced (spec 5.3). */
export function scrubHeaders(headers: IncomingHttpHeaders, genericHeader: string | null): Record<string, string> {
  const generic = genericHeader?.toLowerCase();
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    out[lower] =
      ALWAYS_SCRUBBED.has(lower) || lower === generic
        ? SCRUBBED
        : (Array.isArray(value) ? value.join(', ') : value).slice(0, 1000);
  }
  return out;
}
