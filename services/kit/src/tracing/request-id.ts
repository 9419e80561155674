import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** The header (and gRPC metadata key, and event context key) naming the request a piece of work belongs to. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What a client may send as its own id: printable ASCII without spaces, at most 128 characters. */
const ACCEPTED = /^[\x21-\x7e]{1,128}$/;

/** The caller's `x-request-id` when it is a sensible one, else a new one (the gateway and webhook-ingress). */
export function acceptRequestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && ACCEPTED.test(value) ? value : randomUUID();
}

const current = new AsyncLocalStorage<string>();

/**
 * Runs `work` as part of request `requestId`: every log line written meanwhile carries it (`logFields`), and so do the
 * events recorded and the gRPC calls made (docs/decisions/0069). Without an id, `work` runs as it is.
 */
export function runWithRequestId<T>(requestId: string | undefined, work: () => T): T {
  return requestId ? current.run(requestId, work) : work();
}

export function currentRequestId(): string | undefined {
  return current.getStore();
}

/** Runs `work` outside any request (background passes that serve many: the outbox relay, a job runner). */
export function outsideRequest<T>(work: () => T): T {
  return current.exit(work);
}
