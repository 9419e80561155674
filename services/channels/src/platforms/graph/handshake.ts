import { timingSafeEqual } from 'node:crypto';
import type { HandshakeAnswer, InboundRequest } from '../adapter';

/**
 * The Graph API webhook handshake: `GET ?hub.mode=subscribe&hub.verify_token=<ours>&hub.challenge=<n>` is answered
 * with the challenge as the body when the token is the channel's; anything else is 403 with no body worth reading.
 */
export function hubHandshake(verifyToken: string, request: InboundRequest): HandshakeAnswer {
  const mode = request.query['hub.mode'];
  const token = request.query['hub.verify_token'] ?? '';
  const challenge = request.query['hub.challenge'] ?? '';
  if (mode !== 'subscribe' || !challenge || !verifyToken || !sameSecret(token, verifyToken)) {
    return { status: 403, body: 'verification refused' };
  }
  return { status: 200, body: challenge };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
