import type { Route } from './route';

type Args = Record<string, unknown>;

/** The WHATWG File a multipart request yields for a `File` argument (GraphQL multipart request spec). */
interface UploadedFile {
  name: string;
  type: string;
  arrayBuffer(): Promise<ArrayBuffer>;
}

const isUploadedFile = (value: unknown): value is UploadedFile =>
  typeof value === 'object' && value !== null && typeof (value as UploadedFile).arrayBuffer === 'function';

/** Reads an uploaded file into the MediaUpload the inbox checks and stores; the gateway trusts nothing in it. */
async function mediaUpload(file: unknown, extra: { caption?: unknown; fileName?: unknown } = {}): Promise<Args> {
  if (!isUploadedFile(file)) return { fileName: '', declaredContentType: '', content: Buffer.alloc(0) };
  return {
    fileName: typeof extra.fileName === 'string' && extra.fileName ? extra.fileName : file.name,
    declaredContentType: file.type,
    content: Buffer.from(await file.arrayBuffer()),
    ...(typeof extra.caption === 'string' ? { caption: extra.caption } : {}),
  };
}

export const inboxMediaRoutes: Record<string, Route> = {
  createMedia: {
    service: 'inboxMedia',
    method: 'CreateMedia',
    request: async (a) => ({ file: await mediaUpload(a.file, (a.input ?? {}) as Args) }),
  },
  uploadMultipleMedia: {
    service: 'inboxMedia',
    method: 'UploadMultipleMedia',
    request: async (a) => ({
      files: await Promise.all((Array.isArray(a.files) ? a.files : []).map((f) => mediaUpload(f))),
    }),
    response: (r) => r.data ?? [],
  },
  deleteMedia: { service: 'inboxMedia', method: 'DeleteMedia' },
  conversationMedia: { service: 'inboxMedia', method: 'ListConversationMedia' },
  getChatMedia: { service: 'inboxMedia', method: 'ListChatMedia' },
  conversationMediaCounts: { service: 'inboxMedia', method: 'GetConversationMediaCounts' },
  getChatMediaCounts: { service: 'inboxMedia', method: 'GetChatMediaCounts' },
  allMedia: { service: 'inboxMedia', method: 'ListAllMedia' },
};
