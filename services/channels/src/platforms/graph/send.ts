import { PlatformCallError, type PlatformError, type SendResult } from '../adapter';

/** Content the platform cannot take as given: permanent, never sent. */
export function refusedContent(code: string, message: string): PlatformError {
  return { transient: false, code, message };
}

/**
 * Posts the parts of one outbound message in order and collects the platform's message ids; the first failure ends
 * the send with its classified error (parts already accepted are not posted again by this call).
 */
export async function sendParts<T>(
  parts: T[] | PlatformError,
  post: (part: T) => Promise<string | undefined>,
): Promise<SendResult> {
  if (!Array.isArray(parts)) return { ok: false, error: parts };
  const ids: string[] = [];
  try {
    for (const part of parts) {
      const id = await post(part);
      if (!id)
        return { ok: false, error: refusedContent('no_message_id', 'the platform answered without a message id') };
      ids.push(id);
    }
  } catch (error) {
    if (error instanceof PlatformCallError) return { ok: false, error: error.error };
    throw error;
  }
  return { ok: true, platformMessageIds: ids };
}
