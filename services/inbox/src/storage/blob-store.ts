import type { Readable } from 'node:stream';

/**
 * Where media bytes live, by opaque key (`<orgId>/<mediaId>`). Local disk today (a volume in Kubernetes); an object
 * store is another implementation of the same four calls.
 */
export interface BlobStore {
  /** Stores the bytes under the key; a reader never sees a partly written blob. */
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes, streamed; undefined when no blob has the key. */
  open(key: string): Promise<Readable | undefined>;
  /** Idempotent: deleting a missing blob succeeds. */
  delete(key: string): Promise<void>;
  /** For /readyz: the store can be written. */
  healthy(): Promise<boolean>;
}
