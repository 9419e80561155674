import type { Readable } from 'node:stream';

export interface BodyErrorAnswer {
  status: number;
  code: string;
  message: string;
  /** The client went away before or while its body was read (a page reload aborting a request). */
  clientGone: boolean;
}

/**
 * raw-body's failures while reading a request body, as answers. A request the client aborted before its body was
 * read surfaces as `stream.not.readable` (status 500) rather than `request.aborted`: it is the client's doing, not
 * a server failure, so it is answered 400 and must not be logged as an error. Anything else: undefined.
 */
export function bodyErrorAnswer(error: unknown, request: Readable): BodyErrorAnswer | undefined {
  const { status, type } = error as { status?: unknown; type?: unknown };
  if (status === 413) return { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'body too large', clientGone: false };
  const gone = type === 'request.aborted' || (type === 'stream.not.readable' && request.destroyed);
  if (gone) return { status: 400, code: 'BAD_USER_INPUT', message: 'the request was aborted', clientGone: true };
  if (status === 400) return { status: 400, code: 'BAD_USER_INPUT', message: 'malformed body', clientGone: false };
  return undefined;
}
