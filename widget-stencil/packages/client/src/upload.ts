import { errorOf, networkError, type Fetch } from './http.js';
import type { UploadedMedia } from './types.js';

export interface UploadRequest {
  url: string;
  token: string;
  file: Blob;
  fileName: string;
  onProgress?(loaded: number, total: number): void;
  signal?: AbortSignal;
}

/** The raw-bytes upload of `POST /media` (docs/widget-api.md): the file's type, its URI-encoded name in `x-file-name`. */
function headersOf(request: UploadRequest): Record<string, string> {
  return {
    authorization: `Bearer ${request.token}`,
    'content-type': request.file.type || 'application/octet-stream',
    'x-file-name': encodeURIComponent(request.fileName),
  };
}

interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob): void;
  abort(): void;
  getResponseHeader(name: string): string | null;
  readonly status: number;
  readonly responseText: string;
  readonly upload: { onprogress: ((event: { loaded: number; total: number }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

type XhrConstructor = new () => XhrLike;

/** `XMLHttpRequest` when the platform has it: the one browser API that reports upload progress over HTTP/1.1. */
export function xhrConstructor(): XhrConstructor | undefined {
  return (globalThis as { XMLHttpRequest?: XhrConstructor }).XMLHttpRequest;
}

/** Upload with `XMLHttpRequest` (progress as the browser sends), else `fetch` (progress at the start and the end). */
export function uploadMedia(request: UploadRequest, fetcher: Fetch, Xhr?: XhrConstructor): Promise<UploadedMedia> {
  return Xhr ? uploadWithXhr(request, Xhr) : uploadWithFetch(request, fetcher);
}

async function uploadWithFetch(request: UploadRequest, fetcher: Fetch): Promise<UploadedMedia> {
  const total = request.file.size;
  request.onProgress?.(0, total);
  let response: Response;
  try {
    response = await fetcher(request.url, {
      method: 'POST',
      headers: headersOf(request),
      body: request.file,
      signal: request.signal,
    });
  } catch (error) {
    throw networkError(error);
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) throw errorOf(response.status, response.headers, text);
  request.onProgress?.(total, total);
  return JSON.parse(text) as UploadedMedia;
}

function uploadWithXhr(request: UploadRequest, Xhr: XhrConstructor): Promise<UploadedMedia> {
  return new Promise((resolve, reject) => {
    const xhr = new Xhr();
    const total = request.file.size;
    const onAbort = () => xhr.abort();
    const done = () => request.signal?.removeEventListener('abort', onAbort);
    xhr.open('POST', request.url);
    for (const [name, value] of Object.entries(headersOf(request))) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => request.onProgress?.(event.loaded, event.total || total);
    xhr.onload = () => {
      done();
      if (xhr.status < 200 || xhr.status >= 300) {
        reject(errorOf(xhr.status, { get: (name) => xhr.getResponseHeader(name) }, xhr.responseText));
        return;
      }
      request.onProgress?.(total, total);
      try {
        resolve(JSON.parse(xhr.responseText) as UploadedMedia);
      } catch (error) {
        reject(networkError(error));
      }
    };
    xhr.onerror = () => {
      done();
      reject(networkError(new Error('upload failed')));
    };
    xhr.onabort = () => {
      done();
      reject(networkError(Object.assign(new Error('upload aborted'), { name: 'AbortError' })));
    };
    request.signal?.addEventListener('abort', onAbort);
    request.onProgress?.(0, total);
    xhr.send(request.file);
  });
}
