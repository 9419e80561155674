import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundRequest, Verification } from '../adapter';

/** The header Meta's Graph API webhooks carry: `sha256=<lower-case hex HMAC-SHA256(app secret, raw body)>`. */
export const HUB_SIGNATURE_HEADER = 'x-hub-signature-256';

/** What the platform puts in `X-Hub-Signature-256` for `rawBody` (also what the fakes sign with). */
export function hubSignature(appSecret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/**
 * Checks `X-Hub-Signature-256` over the raw bytes as they arrived (never a re-serialised body: Meta signs its own
 * escaping), in constant time. The older SHA-1 `X-Hub-Signature` is not accepted.
 */
export function verifyHubSignature(appSecret: string, request: InboundRequest): Verification {
  const given = request.headers[HUB_SIGNATURE_HEADER];
  if (!given) return { ok: false, reason: 'X-Hub-Signature-256 is missing' };
  if (!appSecret) return { ok: false, reason: 'the channel has no app secret' };
  const expected = Buffer.from(hubSignature(appSecret, request.rawBody));
  const candidate = Buffer.from(given.trim().toLowerCase());
  // timingSafeEqual needs equal lengths; a malformed header is refused without comparing.
  if (candidate.length !== expected.length || !timingSafeEqual(candidate, expected)) {
    return { ok: false, reason: 'X-Hub-Signature-256 does not match' };
  }
  return { ok: true };
}
