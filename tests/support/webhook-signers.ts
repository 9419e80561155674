import { createHmac, randomBytes } from 'node:crypto';

/** How each auth mode signs a raw body, as the real senders do; used by the e2e suite and the benchmark. */
export interface SignOptions {
  /** Unix seconds of the signed timestamp (default: now). */
  at?: number;
  /** Extra signature values to send next to the real one (rotation). */
  extra?: string[];
  /** Replace the real signature entirely. */
  only?: string[];
}

const hex = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest('hex');
const b64 = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest('base64');
const nowSeconds = () => Math.floor(Date.now() / 1000);

export type Signer = (body: string, secret: string, options?: SignOptions) => Record<string, string>;

export const SIGNERS: Record<string, Signer> = {
  PAYMENTS_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const sigs = o.only ?? [...(o.extra ?? []), `v1=${hex(secret, `${t}.${body}`)}`];
    return { 'stripe-signature': [`t=${t}`, ...sigs].join(',') };
  },
  TEAM_CHAT_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const sigs = o.only ?? [...(o.extra ?? []), `v0=${hex(secret, `v0:${t}:${body}`)}`];
    return { 'x-slack-request-timestamp': String(t), 'x-slack-signature': sigs.join(',') };
  },
  WEBHOOK_DELIVERY_PLATFORM: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const id = `msg_${randomBytes(8).toString('hex')}`;
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const sigs = o.only ?? [...(o.extra ?? []), `v1,${b64(key, `${id}.${t}.${body}`)}`];
    return { 'webhook-id': id, 'webhook-timestamp': String(t), 'webhook-signature': sigs.join(' ') };
  },
  BILLING_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const sigs = o.only ?? [...(o.extra ?? []), `h1=${hex(secret, `${t}:${body}`)}`];
    return { 'paddle-signature': [`ts=${t}`, ...sigs].join(';') };
  },
  BUSINESS_BANKING_PROVIDER: (body, secret, o = {}) => {
    const t = o.at ?? nowSeconds();
    const sigs = o.only ?? [...(o.extra ?? []), `v1=${hex(secret, `${t}.${body}`)}`];
    return { 'mercury-signature': [`t=${t}`, ...sigs].join(',') };
  },
  HUB_SIGNATURE_256: (body, secret, o = {}) => ({
    'x-hub-signature-256': (o.only ?? [...(o.extra ?? []), `sha256=${hex(secret, body)}`]).join(','),
  }),
  SHOPIFY: (body, secret, o = {}) => ({
    'x-shopify-hmac-sha256': (o.only ?? [...(o.extra ?? []), b64(secret, body)]).join(','),
  }),
  LINEAR: (body, secret, o = {}) => ({
    'linear-signature': (o.only ?? [...(o.extra ?? []), hex(secret, body)]).join(','),
  }),
};

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

/** A valid HMAC under a version tag the mode does not know (must be skipped, so the request is refused). */
export function unknownTagOnly(mode: string, body: string, secret: string): string[] | undefined {
  const t = nowSeconds();
  switch (mode) {
    case 'PAYMENTS_PROVIDER':
    case 'BUSINESS_BANKING_PROVIDER':
      return [`v9=${hex(secret, `${t}.${body}`)}`];
    case 'TEAM_CHAT_PROVIDER':
      return [`v9=${hex(secret, `v0:${t}:${body}`)}`];
    case 'BILLING_PROVIDER':
      return [`h9=${hex(secret, `${t}:${body}`)}`];
    case 'WEBHOOK_DELIVERY_PLATFORM':
      return [`v1a,${Buffer.alloc(64, 2).toString('base64')}`];
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
