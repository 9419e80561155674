import type { Metadata } from '@grpc/grpc-js';

/**
 * The gRPC metadata key of a call's response field mask (docs/decisions/0290): the response fields the caller will
 * read, as google.protobuf.FieldMask's JSON form writes them (comma-separated dotted paths of camelCase field names,
 * like Google APIs' `X-Goog-FieldMask`). The gateway sends the fields of the client's GraphQL selection.
 */
export const FIELD_MASK_HEADER = 'x-svc-field-mask';

/**
 * Which response fields a caller reads. A path names a field and everything under it; without a mask the caller reads
 * every field. A service may leave a field the caller does not read at its default to skip the work it costs, and must
 * answer every field the caller reads exactly as without a mask.
 *
 * Written here because the protobuf runtimes' FieldMask utilities (merge, intersect) need descriptors ts-proto does not
 * generate, and what a service asks of a mask is one question: "is anything at or under this path read?".
 */
export class ResponseFields {
  static readonly ALL = new ResponseFields(undefined);

  /** `mask` undefined: every field; a header value is split on first use (most handlers never ask). */
  private constructor(private mask: readonly string[] | string | undefined) {}

  static of(paths: readonly string[] | undefined): ResponseFields {
    return paths === undefined ? ResponseFields.ALL : new ResponseFields(paths);
  }

  /** The mask a call carries; every field when it carries none. */
  static fromMetadata(metadata: Metadata): ResponseFields {
    const [value] = metadata.get(FIELD_MASK_HEADER);
    return typeof value === 'string' ? new ResponseFields(value) : ResponseFields.ALL;
  }

  /** The metadata value of a mask of these paths. */
  static header(paths: readonly string[]): string {
    return paths.join(',');
  }

  private get paths(): readonly string[] | undefined {
    if (typeof this.mask === 'string') this.mask = this.mask.split(',').filter(Boolean);
    return this.mask;
  }

  /** Whether the caller reads the field at `path` or anything under it (a masked ancestor covers all its fields). */
  reads(path: string): boolean {
    const paths = this.paths;
    if (paths === undefined) return true;
    return paths.some((p) => p === path || p.startsWith(`${path}.`) || path.startsWith(`${p}.`));
  }

  /** The mask of the message at `path`, with paths relative to it (`data` of a page: the fields of each item). */
  under(path: string): ResponseFields {
    const paths = this.paths;
    if (paths === undefined || paths.some((p) => p === path || path.startsWith(`${p}.`))) return ResponseFields.ALL;
    const prefix = `${path}.`;
    return new ResponseFields(paths.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)));
  }
}
