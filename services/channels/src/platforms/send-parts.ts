import { PlatformCallError, type PlatformError, type SendResult } from './adapter';

/**
 * Posts the parts of one outbound message in order, from `fromPart` on (those before it were taken by an earlier
 * attempt: never posted again), and collects the platform's message id of each. The first failure ends the send with
 * its classified error and the ids of the parts this call did get taken (`partsTaken`), so the sender can resume
 * after them (decision 0141). Every adapter sends through it, so "one id per part, in order" holds for all.
 */
export async function sendParts<T>(
  parts: T[] | PlatformError,
  fromPart: number,
  post: (part: T, index: number) => Promise<string | undefined>,
): Promise<SendResult> {
  if (!Array.isArray(parts)) return { ok: false, error: parts };
  const ids: string[] = [];
  const taken = () => (ids.length ? { partsTaken: ids } : {});
  try {
    for (let index = fromPart; index < parts.length; index += 1) {
      const id = await post(parts[index]!, index);
      if (!id)
        return {
          ok: false,
          error: { transient: false, code: 'no_message_id', message: 'the platform answered without a message id' },
          ...taken(),
        };
      ids.push(id);
    }
  } catch (error) {
    if (error instanceof PlatformCallError) return { ok: false, error: error.error, ...taken() };
    throw error;
  }
  return { ok: true, platformMessageIds: ids };
}
