import { createHash, timingSafeEqual } from 'node:crypto';
import { PlatformCallError } from './adapter';

/** A platform's answer: the HTTP status and the body text (each adapter parses it in its platform's shape). */
export interface PlatformResponse {
  status: number;
  text: string;
  headers: Headers;
}

/**
 * One HTTP call to a platform with the adapter's timeout. A timeout or a connection failure is a transient
 * `PlatformCallError` (the sender retries it with backoff; whether the platform acted is unknown, so the sender treats
 * it as in doubt). The URL is never put in an error: bot-token platforms carry the token in the path.
 */
export async function callPlatform(url: string, init: RequestInit, timeoutMs: number): Promise<PlatformResponse> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    return { status: response.status, text: await response.text(), headers: response.headers };
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new PlatformCallError({
      transient: true,
      code: timedOut ? 'timeout' : 'network',
      message: timedOut ? `the platform did not answer within ${timeoutMs} ms` : 'the platform could not be reached',
    });
  }
}

/** Downloads bytes (media) with the adapter's timeout; a non-2xx answer is a PlatformCallError classified by status. */
export async function downloadFromPlatform(
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<{ bytes: Buffer; mimeType?: string }> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) {
      throw new PlatformCallError({
        transient: response.status === 429 || response.status >= 500,
        code: `http_${response.status}`,
        message: `the media download was answered ${response.status}`,
      });
    }
    const bytes = Buffer.from(await response.arrayBuffer());
    const mimeType = response.headers.get('content-type')?.split(';')[0]?.trim();
    return mimeType ? { bytes, mimeType } : { bytes };
  } catch (error) {
    if (error instanceof PlatformCallError) throw error;
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new PlatformCallError({
      transient: true,
      code: timedOut ? 'timeout' : 'network',
      message: timedOut ? `the media download took longer than ${timeoutMs} ms` : 'the media could not be downloaded',
    });
  }
}

/**
 * Compares a presented secret with the expected one in constant time whatever their lengths (both are hashed first,
 * so neither the length nor a prefix leaks through timing).
 */
export function secretsEqual(presented: string, expected: string): boolean {
  if (!expected) return false;
  const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(expected)) && presented.length === expected.length;
}
