import { createHmac, timingSafeEqual } from 'node:crypto';

/** Spec 8: signed timestamps may be at most 5 minutes old or ahead. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

export type HeaderReader = (name: string) => string | undefined;

export function hmacSha256(key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac('sha256', key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/**
 * Whether any candidate equals the expected digest, compared in constant time. Every candidate is compared (no early
 * exit), so the time does not reveal which one matched; candidates of the wrong length are skipped.
 */
export function anyMatches(expected: Buffer, candidates: Buffer[]): boolean {
  let matched = false;
  for (const candidate of candidates) {
    if (candidate.length === expected.length && timingSafeEqual(candidate, expected)) matched = true;
  }
  return matched;
}

export function fromHex(value: string): Buffer | undefined {
  return /^[0-9a-fA-F]+$/.test(value) && value.length % 2 === 0 ? Buffer.from(value, 'hex') : undefined;
}

export function fromBase64(value: string): Buffer | undefined {
  return /^[A-Za-z0-9+/_-]+={0,2}$/.test(value) ? Buffer.from(value, 'base64') : undefined;
}

/** A signed unix timestamp (seconds) within the tolerance of now. */
export function freshTimestamp(value: string | undefined, nowSeconds: number): boolean {
  if (!value || !/^\d{1,12}$/.test(value)) return false;
  return Math.abs(nowSeconds - Number(value)) <= TIMESTAMP_TOLERANCE_SECONDS;
}

/** `k=v` items of a signature header, in order, split on `separator` (repeated keys are kept: rotation). */
export function keyValues(header: string, separator: string): [string, string][] {
  return header
    .split(separator)
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const at = item.indexOf('=');
      return at < 0 ? ([item, ''] as [string, string]) : ([item.slice(0, at), item.slice(at + 1)] as [string, string]);
    });
}

export function present<T>(values: (T | undefined)[]): T[] {
  return values.filter((v): v is T => v !== undefined);
}
