import type { PlatformError } from '../adapter';

/** Content the platform cannot take as given: permanent, never sent. */
export function refusedContent(code: string, message: string): PlatformError {
  return { transient: false, code, message };
}
