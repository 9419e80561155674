import { PlatformCallError, type PlatformError } from '../adapter';
import { callPlatform } from '../platform-http';

/** Every answer of the Viber REST bot API: `status` 0 is success, anything else is an error code with its name. */
export interface ViberEnvelope {
  status?: number;
  status_message?: string;
}

/**
 * Viber's message tokens are 64-bit integers written as JSON numbers, beyond a double's 53 bits: reading them with
 * JSON.parse would round them, and a `delivered` callback would then name a token no send ever returned. Every
 * `message_token` number is turned into a string before parsing (inside a JSON string the key's quotes are escaped,
 * so user text cannot match).
 */
export function parseViberJson<T>(text: string): T {
  return JSON.parse(text.replace(/"message_token"\s*:\s*(-?\d+)/g, '"message_token":"$1"')) as T;
}

/** Calls `POST <base>/<method>` (base `https://chatapi.viber.com/pa`) with the account's token in `X-Viber-Auth-Token`. */
export class ViberApi {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async call<T extends ViberEnvelope>(authToken: string, method: string, body: object = {}): Promise<T> {
    const response = await callPlatform(
      `${this.baseUrl}/${method}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-viber-auth-token': authToken },
        body: JSON.stringify(body),
      },
      this.timeoutMs,
    );
    let envelope: T | undefined;
    try {
      envelope = parseViberJson<T>(response.text);
    } catch {
      envelope = undefined;
    }
    if (response.status < 300 && envelope?.status === 0) return envelope;
    throw new PlatformCallError(classifyViberError(response.status, envelope));
  }
}

/** Viber's documented status codes (creators.viber.com/docs/bots-api/errors), by name. */
export const VIBER_STATUS: Readonly<Record<number, string>> = {
  1: 'invalidUrl',
  2: 'invalidAuthToken',
  3: 'badData',
  4: 'missingData',
  5: 'receiverNotRegistered',
  6: 'receiverNotSubscribed',
  7: 'publicAccountBlocked',
  8: 'publicAccountNotFound',
  9: 'publicAccountSuspended',
  10: 'webhookNotSet',
  11: 'receiverNoSuitableDevice',
  12: 'tooManyRequests',
  13: 'apiVersionNotSupported',
  14: 'incompatibleWithVersion',
  15: 'publicAccountNotAuthorized',
  16: 'inchatReplyMessageNotAllowed',
  17: 'publicAccountIsNotInline',
  18: 'noPublicChat',
  19: 'cannotSendBroadcast',
  20: 'broadcastNotAllowed',
  21: 'unsupportedCountry',
  22: 'paymentUnsupported',
  23: 'freeMessagesExceeded',
  24: 'noBalance',
};

/** What a status means to an agent; the code and Viber's name are kept beside it. */
const READABLE: Readonly<Record<number, string>> = {
  2: 'Viber refused the authentication token',
  5: 'the recipient is not a Viber user any more',
  6: 'the user is not subscribed to the account (never wrote to it, or unsubscribed): Viber lets a bot message subscribed users only',
  7: 'the Viber account is blocked',
  8: 'the Viber account was not found',
  9: 'the Viber account is suspended',
  11: 'the recipient has no device that can receive bot messages',
  12: 'Viber allows 100 messages to a user per hour without a reply',
  15: 'the Viber account is not authorised to send',
  23: 'the account used up its free chatbot-initiated messages',
  24: 'the account has no balance for chatbot-initiated messages',
};

/** Codes about the account itself: nothing this channel sends can succeed until someone fixes the account. */
const ACCOUNT_CODES = new Set([2, 7, 8, 9, 15]);

/** Viber waits for a reply or the hour to pass before lifting status 12 (send_message limits); we retry after this. */
export const TOO_MANY_REQUESTS_RETRY_MS = 15 * 60_000;

/**
 * Viber's errors by its docs (decision 0133): 12 `tooManyRequests` is the one rate limit, transient, retried after 15
 * minutes; a status outside the documented list ("General error"), a 5xx or a body that is not Viber's envelope is
 * transient; the account codes (2, 7, 8, 9, 15) need the account fixed (reauthorise); the rest, among them 6
 * `receiverNotSubscribed`, are permanent for that message.
 */
export function classifyViberError(httpStatus: number, envelope: ViberEnvelope | undefined): PlatformError {
  if (httpStatus >= 500 || httpStatus === 429 || typeof envelope?.status !== 'number') {
    return { transient: true, code: `http_${httpStatus}`, message: `Viber answered HTTP ${httpStatus}` };
  }
  const status = envelope.status;
  const name = VIBER_STATUS[status];
  const words = envelope.status_message || name || 'General error';
  const message = READABLE[status] ? `${READABLE[status]} (${words})` : words;
  if (status === 12) return { transient: true, code: '12', message, retryAfterMs: TOO_MANY_REQUESTS_RETRY_MS };
  if (!name) return { transient: true, code: String(status), message };
  if (ACCOUNT_CODES.has(status)) return { transient: false, code: String(status), message, reauthorize: true };
  return { transient: false, code: String(status), message };
}
