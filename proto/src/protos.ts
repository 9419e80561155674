import * as path from 'node:path';

/** Folder holding `svc/<domain>/v1/*.proto`, for loaders that read .proto files (the gateway's composer). */
export const PROTO_ROOT = path.resolve(__dirname, '..', '..');

export function protoFile(relative: string): string {
  return path.join(PROTO_ROOT, relative);
}
