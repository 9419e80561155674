import { createHash } from 'node:crypto';
import { InvalidArgument } from '@svc/kit';
import type { MediaType } from '@svc/proto/inbox/v1';
import type { MediaUpload } from '@svc/proto/inbox/v1/media';
import { sniffMedia } from './media-types';

export const MAX_CAPTION_LENGTH = 1000;
const MAX_FILE_NAME_LENGTH = 255;

export interface MediaLimits {
  /** Per file. */
  maxBytes: number;
  /** Per uploadMultipleMedia call. */
  maxFiles: number;
}

/** An upload that passed every check, ready to store. */
export interface ValidUpload {
  bytes: Buffer;
  fileName: string;
  declaredContentType: string | null;
  contentType: string;
  type: MediaType;
  sha256: string;
  caption: string | null;
}

/** Keeps the last path segment, without control characters: a name to show and to offer for download. */
export function cleanFileName(name: string): string {
  // eslint-disable-next-line no-control-regex
  const base = (name.split(/[/\\]/).pop() ?? '').replace(/[\u0000-\u001f\u007f"]/g, '').trim();
  return base.slice(0, MAX_FILE_NAME_LENGTH) || 'file';
}

function bad(message: string, field: string): never {
  throw new InvalidArgument(message, { field });
}

/** Size, caption and the sniffed content type of one upload (`field` names it in errors, e.g. `files.2`). */
export async function validUpload(upload: MediaUpload, limits: MediaLimits, field: string): Promise<ValidUpload> {
  const bytes = upload.content;
  const fileName = cleanFileName(upload.fileName);
  if (!bytes.length) bad(`${fileName}: the file is empty`, field);
  if (bytes.length > limits.maxBytes) bad(`${fileName}: files are limited to ${limits.maxBytes} bytes`, field);
  const caption = upload.caption?.trim() || null;
  if (caption && caption.length > MAX_CAPTION_LENGTH)
    bad(`caption must be at most ${MAX_CAPTION_LENGTH} characters`, `${field}.caption`);
  const sniffed = await sniffMedia(bytes, fileName, field);
  return {
    bytes,
    fileName,
    declaredContentType: upload.declaredContentType.slice(0, 255) || null,
    contentType: sniffed.contentType,
    type: sniffed.type,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    caption,
  };
}
