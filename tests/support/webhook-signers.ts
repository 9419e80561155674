import { createHmac, randomBytes } from 'node:crypto';

/** How each auth mode signs a raw body, as the real senders do; used by the e2e suite and the benchmark. */
export interface SignOptions {
  /** Unix seconds of the signed timestamp (default: now). */
  at?: number;
  /** Extra signature values to send next to the real one (rotation). */
  extra?: string[];
  /**
   * Replace the real signature entirely: the values to send, or a function of the real digest (hex or base64, as the
   * mode encodes it) for values that must carry the valid HMAC of this very request (same id and timestamp).
   */
  only?: string[] | ((digest: string) => string[]);
  /** The delivery platform's message id (`webhook-id`; default: a new one, as every new message has). */
  id?: string;
}

const hex = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest('hex');
const b64 = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest('base64');
const nowSeconds = () => Math.floor(Date.now() / 1000);

export type Signer = (body: string, secret: string, options?: SignOptions) => Record<string, string>;

/** The signature values to send: the caller's replacement, else the extra ones followed by the real one. */
function values(o: SignOptions, digest: string, real: string): string[] {
  if (typeof o.only === 'function') return o.only(digest);
  return o.only ?? [...(o.extra ?? []), real];
}

export const SIGNERS: Record<string, Signer> = {
  PAYMENTS_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const digest = hex(secret, `${t}.${body}`);
    return { 'stripe-signature': [`t=${t}`, ...values(o, digest, `v1=${digest}`)].join(',') };
  },
  TEAM_CHAT_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const digest = hex(secret, `v0:${t}:${body}`);
    return { 'x-slack-request-timestamp': String(t), 'x-slack-signature': values(o, digest, `v0=${digest}`).join(',') };
  },
  WEBHOOK_DELIVERY_PLATFORM: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const id = o.id ?? `msg_${randomBytes(8).toString('hex')}`;
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const digest = b64(key, `${id}.${t}.${body}`);
    return {
      'webhook-id': id,
      'webhook-timestamp': String(t),
      'webhook-signature': values(o, digest, `v1,${digest}`).join(' '),
    };
  },
  BILLING_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const digest = hex(secret, `${t}:${body}`);
    return { 'paddle-signature': [`ts=${t}`, ...values(o, digest, `h1=${digest}`)].join(';') };
  },
  BUSINESS_BANKING_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const digest = hex(secret, `${t}.${body}`);
    return { 'mercury-signature': [`t=${t}`, ...values(o, digest, `v1=${digest}`)].join(',') };
  },
  HUB_SIGNATURE_256: (body, secret, o = {}) => {
    const digest = hex(secret, body);
    return { 'x-hub-signature-256': values(o, digest, `sha256=${digest}`).join(',') };
  },
  SHOPIFY: (body, secret, o = {}) => {
    const digest = b64(secret, body);
    return { 'x-shopify-hmac-sha256': values(o, digest, digest).join(',') };
  },
  LINEAR: (body, secret, o = {}) => {
    const digest = hex(secret, body);
    return { 'linear-signature': values(o, digest, digest).join(',') };
  },
};

/** Svix sends the Standard Webhooks headers under its own names: `webhook-*` renamed `svix-*`. */
export function asSvixHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.replace(/^webhook-/, 'svix-'), value]),
  );
}

/** A signature value of the right shape that does not verify, per mode (for "several, one valid"). */
export const WRONG_VALUE: Record<string, string> = {
  PAYMENTS_PROVIDER: `v1=${'ab'.repeat(32)}`,
  TEAM_CHAT_PROVIDER: `v0=${'ab'.repeat(32)}`,
  WEBHOOK_DELIVERY_PLATFORM: `v1,${Buffer.alloc(32, 1).toString('base64')}`,
  BILLING_PROVIDER: `h1=${'ab'.repeat(32)}`,
  BUSINESS_BANKING_PROVIDER: `v1=${'ab'.repeat(32)}`,
  HUB_SIGNATURE_256: `sha256=${'ab'.repeat(32)}`,
  SHOPIFY: Buffer.alloc(32, 1).toString('base64'),
  LINEAR: 'ab'.repeat(32),
};

/**
 * The request's valid HMAC under a version tag the mode does not know (must be skipped, so the request is refused);
 * pass it as `only`. The signer supplies the digest, so it is valid for that very request (same id and timestamp).
 * `_body` and `_secret` are not needed for that; they are accepted for callers written when they were.
 */
export function unknownTagOnly(
  mode: string,
  _body?: string,
  _secret?: string,
): ((digest: string) => string[]) | undefined {
  switch (mode) {
    case 'PAYMENTS_PROVIDER':
    case 'BUSINESS_BANKING_PROVIDER':
    case 'TEAM_CHAT_PROVIDER':
      return (digest) => [`v9=${digest}`];
    case 'BILLING_PROVIDER':
      return (digest) => [`h9=${digest}`];
    case 'WEBHOOK_DELIVERY_PLATFORM':
      // `v1a` is Standard Webhooks' Ed25519 tag: a prefix of the real `v1` tag, so it also catches a loose match.
      return (digest) => [`v1a,${digest}`];
    default:
      return undefined; // the generic presets carry no version tag
  }
}

/** Modes with a signed timestamp. */
export const TIMESTAMPED = [
  'PAYMENTS_PROVIDER',
  'TEAM_CHAT_PROVIDER',
  'WEBHOOK_DELIVERY_PLATFORM',
  'BILLING_PROVIDER',
  'BUSINESS_BANKING_PROVIDER',
];

/** Connection input per mode (the generic presets share one auth mode). */
export function connectionInputFor(mode: string, secret: string): Record<string, unknown> {
  if (['HUB_SIGNATURE_256', 'SHOPIFY', 'LINEAR'].includes(mode))
    return { authMode: 'GENERIC_HMAC_SHA256', signingSecret: secret, genericHmac: { preset: mode } };
  return { authMode: mode, signingSecret: secret };
}

export function signingSecretFor(mode: string): string {
  return mode === 'WEBHOOK_DELIVERY_PLATFORM' || mode === 'PAYMENTS_PROVIDER'
    ? `whsec_${randomBytes(24).toString('base64')}`
    : randomBytes(24).toString('hex');
}
