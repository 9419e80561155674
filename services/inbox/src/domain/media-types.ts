import { InvalidArgument } from '@svc/kit';
import { MediaType } from '@svc/proto/inbox/v1';

/**
 * What the media library accepts, by the content type sniffed from the bytes (docs/decisions/0021-inbox-media.md).
 * Anything else — executables, archives, HTML/SVG/XML, fonts — is refused: the library is for what a conversation
 * shows, and a link to it must never render active content.
 */
const ACCEPTED: Record<string, MediaType> = {
  'image/jpeg': MediaType.IMAGE,
  'image/png': MediaType.IMAGE,
  'image/gif': MediaType.IMAGE,
  'image/webp': MediaType.IMAGE,
  'image/avif': MediaType.IMAGE,
  'image/heic': MediaType.IMAGE,
  'image/heif': MediaType.IMAGE,
  'image/bmp': MediaType.IMAGE,
  'image/tiff': MediaType.IMAGE,
  'video/mp4': MediaType.VIDEO,
  'video/webm': MediaType.VIDEO,
  'video/quicktime': MediaType.VIDEO,
  'video/3gpp': MediaType.VIDEO,
  'video/x-m4v': MediaType.VIDEO,
  'video/mpeg': MediaType.VIDEO,
  'audio/mpeg': MediaType.AUDIO,
  'audio/ogg': MediaType.AUDIO,
  'audio/wav': MediaType.AUDIO,
  'audio/aac': MediaType.AUDIO,
  'audio/mp4': MediaType.AUDIO,
  'audio/x-m4a': MediaType.AUDIO,
  'audio/flac': MediaType.AUDIO,
  'audio/amr': MediaType.AUDIO,
  'application/ogg': MediaType.AUDIO,
  'application/pdf': MediaType.DOCUMENT,
  'application/rtf': MediaType.DOCUMENT,
  'application/epub+zip': MediaType.DOCUMENT,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': MediaType.DOCUMENT,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': MediaType.DOCUMENT,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': MediaType.DOCUMENT,
  'application/vnd.oasis.opendocument.text': MediaType.DOCUMENT,
  'application/vnd.oasis.opendocument.spreadsheet': MediaType.DOCUMENT,
  'application/vnd.oasis.opendocument.presentation': MediaType.DOCUMENT,
  'text/calendar': MediaType.DOCUMENT,
  'text/vcard': MediaType.DOCUMENT,
  'text/plain': MediaType.DOCUMENT,
  'text/csv': MediaType.DOCUMENT,
};

/** Types a browser may show inline from a signed link; everything else downloads as an attachment. */
export function isInlineSafe(contentType: string): boolean {
  return /^(image|video|audio)\//.test(contentType) || contentType === 'application/pdf';
}

export interface SniffedType {
  contentType: string;
  type: MediaType;
}

type Sniffer = (bytes: Uint8Array) => Promise<{ mime: string } | undefined>;
let sniffer: Promise<Sniffer> | undefined;

/** file-type is ESM-only; this CommonJS package loads it once on first use. */
function loadSniffer(): Promise<Sniffer> {
  sniffer ??= import('file-type').then((module) => module.fileTypeFromBuffer);
  return sniffer;
}

/** Plain text has no magic number: valid UTF-8 with no control characters but tab, newline, carriage return, form feed. */
function isPlainText(bytes: Buffer): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  // eslint-disable-next-line no-control-regex
  return !/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text);
}

/** The content type the bytes really have, and the media type it files under; BAD_USER_INPUT when not accepted. */
export async function sniffMedia(bytes: Buffer, fileName: string, field: string): Promise<SniffedType> {
  const detected = await (await loadSniffer())(bytes);
  let contentType = detected?.mime;
  if (!contentType && isPlainText(bytes)) contentType = /\.csv$/i.test(fileName) ? 'text/csv' : 'text/plain';
  const type = contentType ? ACCEPTED[contentType] : undefined;
  if (!contentType || !type)
    throw new InvalidArgument(
      `${fileName}: content type ${contentType ?? 'unknown binary'} is not accepted (images, video, audio, PDF, office documents, plain text)`,
      { field },
    );
  return { contentType, type };
}
