import { expect } from 'chai';
import { uploadMedia } from '../src/upload.js';

/** The parts of XMLHttpRequest the upload uses; `send` reports progress in three steps, then answers. */
class FakeXhr {
  static last: FakeXhr | undefined;
  static answer = { status: 201, body: '{"_id":"m1","fileName":"a.png"}' };
  method = '';
  url = '';
  headers: Record<string, string> = {};
  status = 0;
  responseText = '';
  upload: { onprogress: ((event: { loaded: number; total: number }) => void) | null } = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;

  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  getResponseHeader() {
    return null;
  }
  abort() {
    this.onabort?.();
  }
  send(body: Blob) {
    for (const part of [1, 2, 3]) this.upload.onprogress?.({ loaded: (body.size * part) / 3, total: body.size });
    this.status = FakeXhr.answer.status;
    this.responseText = FakeXhr.answer.body;
    this.onload?.();
  }
}

const noFetch: typeof fetch = () => Promise.reject(new Error('fetch must not be used'));

describe('uploadMedia', () => {
  const file = new Blob([new Uint8Array(300)], { type: 'image/png' });

  it('reports the browser upload progress of XMLHttpRequest, with the headers of POST /media', async () => {
    FakeXhr.answer = { status: 201, body: '{"_id":"m1","fileName":"a b.png"}' };
    const progress: string[] = [];
    const media = await uploadMedia(
      {
        url: 'http://api.test/api/web/media',
        token: 't',
        file,
        fileName: 'a b.png',
        onProgress: (l, t) => progress.push(`${l}/${t}`),
      },
      noFetch,
      FakeXhr,
    );
    expect(media._id).to.equal('m1');
    expect(progress).to.deep.equal(['0/300', '100/300', '200/300', '300/300', '300/300']);
    expect(FakeXhr.last?.headers).to.deep.equal({
      authorization: 'Bearer t',
      'content-type': 'image/png',
      'x-file-name': 'a%20b.png',
    });
  });

  it('turns a refused upload into a WidgetApiError', async () => {
    FakeXhr.answer = { status: 413, body: '{"error":{"code":"PAYLOAD_TOO_LARGE","message":"too big"}}' };
    const error = await uploadMedia({ url: 'u', token: 't', file, fileName: 'a.png' }, noFetch, FakeXhr).catch(
      (caught: unknown) => caught,
    );
    expect(error).to.include({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('uses fetch without XMLHttpRequest: progress at the start and the end', async () => {
    const progress: string[] = [];
    const fetcher: typeof fetch = async () => new Response('{"_id":"m2"}', { status: 201 });
    const media = await uploadMedia(
      { url: 'u', token: 't', file, fileName: 'a.png', onProgress: (l, t) => progress.push(`${l}/${t}`) },
      fetcher,
    );
    expect(media._id).to.equal('m2');
    expect(progress).to.deep.equal(['0/300', '300/300']);
  });
});
