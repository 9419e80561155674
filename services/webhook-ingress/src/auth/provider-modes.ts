import { HmacEncoding } from '@svc/proto/webhooks/v1';
import {
  anyMatches,
  freshTimestamp,
  fromBase64,
  fromHex,
  hmacSha256,
  keyValues,
  present,
  type HeaderReader,
} from './hmac';

/**
 * The provider modes of spec 5.3. Each verifies the raw body bytes (never re-serialised JSON), accepts every
 * signature value its header carries (key rotation), skips version tags it does not know, and checks the signed
 * timestamp against ±5 minutes. `headersOnly` answers whether the headers alone could be valid (used when a body is
 * too large to read: auth is checked first, but a signature over a body we refuse to read cannot be computed).
 */
export interface SignatureCheck {
  headers: HeaderReader;
  body: Buffer | undefined;
  secret: string;
  nowSeconds: number;
}

export type Verifier = (check: SignatureCheck) => boolean;

/** Payments provider (Stripe style): `Stripe-Signature: t=<unix>,v1=<hex>[,v1=<hex>…]` over `<t>.<body>`. */
export const verifyPaymentsProvider: Verifier = ({ headers, body, secret, nowSeconds }) => {
  const items = keyValues(headers('stripe-signature') ?? '', ',');
  const t = items.find(([k]) => k === 't')?.[1];
  const signatures = present(items.filter(([k]) => k === 'v1').map(([, v]) => fromHex(v)));
  if (!freshTimestamp(t, nowSeconds) || !signatures.length) return false;
  if (!body) return true;
  // The whole secret string is the key, a `whsec_` prefix included.
  return anyMatches(hmacSha256(secret, `${t}.`, body), signatures);
};

/** Team-chat provider (Slack style): `X-Slack-Request-Timestamp` + `X-Slack-Signature: v0=<hex>` over `v0:<ts>:<body>`. */
export const verifyTeamChatProvider: Verifier = ({ headers, body, secret, nowSeconds }) => {
  const ts = headers('x-slack-request-timestamp');
  const signatures = present(
    (headers('x-slack-signature') ?? '')
      .split(/[\s,]+/)
      .filter((item) => item.startsWith('v0='))
      .map((item) => fromHex(item.slice(3))),
  );
  if (!freshTimestamp(ts, nowSeconds) || !signatures.length) return false;
  if (!body) return true;
  return anyMatches(hmacSha256(secret, `v0:${ts}:`, body), signatures);
};

/**
 * Webhook-delivery platform (Standard Webhooks / Svix): `webhook-id|svix-id`, `webhook-timestamp|svix-timestamp`,
 * `webhook-signature|svix-signature` = space-separated `v1,<base64>` over `<id>.<ts>.<body>`, keyed by the
 * base64-decoded secret after `whsec_`.
 */
export const verifyDeliveryPlatform: Verifier = ({ headers, body, secret, nowSeconds }) => {
  const id = headers('webhook-id') ?? headers('svix-id');
  const ts = headers('webhook-timestamp') ?? headers('svix-timestamp');
  const signatures = present(
    (headers('webhook-signature') ?? headers('svix-signature') ?? '')
      .split(' ')
      .filter((item) => item.startsWith('v1,'))
      .map((item) => fromBase64(item.slice(3))),
  );
  if (!id || !freshTimestamp(ts, nowSeconds) || !signatures.length) return false;
  if (!body) return true;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return anyMatches(hmacSha256(key, `${id}.${ts}.`, body), signatures);
};

/** Billing provider (Paddle style): `Paddle-Signature: ts=<unix>;h1=<hex>[;h1=<hex>…]` over `<ts>:<body>`. */
export const verifyBillingProvider: Verifier = ({ headers, body, secret, nowSeconds }) => {
  const items = keyValues(headers('paddle-signature') ?? '', ';');
  const ts = items.find(([k]) => k === 'ts')?.[1];
  const signatures = present(items.filter(([k]) => k === 'h1').map(([, v]) => fromHex(v)));
  if (!freshTimestamp(ts, nowSeconds) || !signatures.length) return false;
  if (!body) return true;
  return anyMatches(hmacSha256(secret, `${ts}:`, body), signatures);
};

/** Business-banking provider (Mercury style): `Mercury-Signature: t=<unix>,v1=<hex>` over `<t>.<body>`. */
export const verifyBusinessBankingProvider: Verifier = ({ headers, body, secret, nowSeconds }) => {
  const items = keyValues(headers('mercury-signature') ?? '', ',');
  const t = items.find(([k]) => k === 't')?.[1];
  const signatures = present(items.filter(([k]) => k === 'v1').map(([, v]) => fromHex(v)));
  if (!freshTimestamp(t, nowSeconds) || !signatures.length) return false;
  if (!body) return true;
  return anyMatches(hmacSha256(secret, `${t}.`, body), signatures);
};

export interface GenericHmac {
  headerName: string;
  encoding: HmacEncoding;
  prefix: string | null;
}

/** Generic HMAC-SHA256 over the raw body: the configured header (comma-separated values), encoding and prefix. */
export function verifyGenericHmac(settings: GenericHmac): Verifier {
  return ({ headers, body, secret }) => {
    const decode = settings.encoding === HmacEncoding.BASE64 ? fromBase64 : fromHex;
    const prefix = settings.prefix ?? '';
    const signatures = present(
      (headers(settings.headerName.toLowerCase()) ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item && item.startsWith(prefix))
        .map((item) => decode(item.slice(prefix.length))),
    );
    if (!signatures.length) return false;
    if (!body) return true;
    return anyMatches(hmacSha256(secret, body), signatures);
  };
}

/** Presets of the generic mode for common senders. */
export const GENERIC_PRESETS = {
  HUB_SIGNATURE_256: { headerName: 'X-Hub-Signature-256', encoding: HmacEncoding.HEX, prefix: 'sha256=' },
  SHOPIFY: { headerName: 'X-Shopify-Hmac-Sha256', encoding: HmacEncoding.BASE64, prefix: null },
  LINEAR: { headerName: 'Linear-Signature', encoding: HmacEncoding.HEX, prefix: null },
} as const satisfies Record<string, GenericHmac>;

/** Every header a mode reads a secret or signature from: scrubbed before the history row is written (domain/scrub). */
export const SIGNATURE_HEADERS = [
  'x-webhook-secret',
  'stripe-signature',
  'x-slack-signature',
  'webhook-signature',
  'svix-signature',
  'paddle-signature',
  'mercury-signature',
  'x-hub-signature-256',
  'x-hub-signature',
  'x-shopify-hmac-sha256',
  'linear-signature',
];
