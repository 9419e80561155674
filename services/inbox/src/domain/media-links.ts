import { createHmac, timingSafeEqual } from 'node:crypto';

export interface MediaLinkOptions {
  /** HMAC key; at least 32 bytes of entropy. */
  secret: string;
  /** A link is valid for at least this long and at most twice it. */
  ttlSeconds: number;
  /** Absolute base of the public edge (`https://inbox.example.com`); empty gives relative links. */
  publicUrl: string;
}

export interface MediaLink {
  url: string;
  expiresAt: Date;
}

/**
 * Signed, expiring links to media bytes (`/media/<id>?expires=<unix>&signature=<base64url>`), served by the inbox
 * without a credential, like the object-store presigned URLs clients already handle. Expiry is rounded to the TTL so
 * every read within one window returns the same link and browsers can cache the bytes.
 */
export class MediaLinks {
  private readonly key: Buffer;

  constructor(private readonly options: MediaLinkOptions) {
    this.key = Buffer.from(options.secret, 'utf8');
  }

  sign(mediaId: string, at = new Date()): MediaLink {
    const ttl = this.options.ttlSeconds;
    const expires = (Math.floor(at.getTime() / 1000 / ttl) + 2) * ttl;
    const base = this.options.publicUrl.replace(/\/+$/, '');
    const url = `${base}/media/${mediaId}?expires=${expires}&signature=${this.signature(mediaId, expires)}`;
    return { url, expiresAt: new Date(expires * 1000) };
  }

  /** 'valid', or why not: a link past its expiry is told apart from a forged one. */
  verify(mediaId: string, expires: string, signature: string, at = new Date()): 'valid' | 'expired' | 'invalid' {
    if (!/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.signature(mediaId, Number(expires)));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
    return Number(expires) * 1000 < at.getTime() ? 'expired' : 'valid';
  }

  private signature(mediaId: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${mediaId}.${expires}`).digest('base64url');
  }
}
