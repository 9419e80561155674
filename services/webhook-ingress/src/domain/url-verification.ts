/**
 * The challenge of a team-chat provider's URL verification handshake, or undefined for any other payload.
 *
 * Slack verifies an Events API Request URL before it sends any event: a signed POST of
 * `{"token":"…","challenge":"…","type":"url_verification"}` that must be answered HTTP 200 echoing the challenge, as
 * text/plain, form-encoded, or JSON `{"challenge":"…"}` — we answer the JSON form, like every other answer of the
 * endpoint (https://api.slack.com/events/url_verification). The `token` is Slack's deprecated verification token:
 * the `v0` signature, already checked, is what authenticates the request (docs/decisions/0045).
 */
export function urlVerificationChallenge(payload: unknown): string | undefined {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const { type, challenge } = payload as { type?: unknown; challenge?: unknown };
  return type === 'url_verification' && typeof challenge === 'string' && challenge ? challenge : undefined;
}
