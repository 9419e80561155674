import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expect } from 'chai';
import { InvalidArgument, newId } from '@svc/kit';
import { MediaType } from '@svc/proto/inbox/v1';
import { cleanFileName, validUpload } from '../src/domain/media-input';
import { MediaLinks } from '../src/domain/media-links';
import { isInlineSafe, sniffMedia } from '../src/domain/media-types';
import { LocalDiskBlobStore } from '../src/storage/local-disk-blob-store';

const PNG = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  Buffer.from('IHDR'),
  Buffer.alloc(17, 1),
]);

async function refusal(promise: Promise<unknown>): Promise<InvalidArgument> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgument);
    return error as InvalidArgument;
  }
  throw new Error('expected a refusal');
}

describe('MediaLinks', () => {
  const links = new MediaLinks({ secret: 'k'.repeat(32), ttlSeconds: 900, publicUrl: 'https://inbox.example.com/' });
  const mediaId = newId();
  const at = new Date('2026-11-22T10:00:00.000Z');

  const parts = (url: string) => {
    const parsed = new URL(url);
    return {
      id: parsed.pathname.split('/').pop() ?? '',
      expires: parsed.searchParams.get('expires') ?? '',
      signature: parsed.searchParams.get('signature') ?? '',
    };
  };

  it('signs absolute links that verify until they expire, then report expiry', () => {
    const link = links.sign(mediaId, at);
    expect(link.url.startsWith(`https://inbox.example.com/media/${mediaId}?expires=`)).to.equal(true);
    const { id, expires, signature } = parts(link.url);
    expect(links.verify(id, expires, signature, at)).to.equal('valid');
    expect(links.verify(id, expires, signature, new Date(link.expiresAt.getTime() - 1))).to.equal('valid');
    expect(links.verify(id, expires, signature, new Date(link.expiresAt.getTime() + 1))).to.equal('expired');
  });

  it('lives between one and two TTLs, and is the same link for every read in one window', () => {
    const first = links.sign(mediaId, at);
    const life = first.expiresAt.getTime() - at.getTime();
    expect(life).to.be.within(900_000, 1_800_000);
    expect(links.sign(mediaId, new Date(at.getTime() + 1_000)).url).to.equal(first.url);
  });

  it('refuses another id, a changed expiry, a changed signature, another key and garbage', () => {
    const { id, expires, signature } = parts(links.sign(mediaId, at).url);
    expect(links.verify(newId(), expires, signature, at)).to.equal('invalid');
    expect(links.verify(id, String(Number(expires) + 900), signature, at)).to.equal('invalid');
    expect(links.verify(id, expires, `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, at)).to.equal(
      'invalid',
    );
    const otherKey = new MediaLinks({ secret: 'z'.repeat(32), ttlSeconds: 900, publicUrl: '' });
    expect(otherKey.verify(id, expires, signature, at)).to.equal('invalid');
    expect(links.verify(id, '12e9', signature, at)).to.equal('invalid');
    expect(links.verify(id, expires, '', at)).to.equal('invalid');
  });

  it('gives relative links without a public URL', () => {
    const relative = new MediaLinks({ secret: 'k'.repeat(32), ttlSeconds: 900, publicUrl: '' });
    expect(relative.sign(mediaId, at).url.startsWith(`/media/${mediaId}?`)).to.equal(true);
  });
});

describe('media sniffing and upload checks', () => {
  it('trusts the bytes, not the name or the declared type', async () => {
    expect(await sniffMedia(PNG, 'report.pdf', 'file')).to.deep.equal({
      contentType: 'image/png',
      type: MediaType.IMAGE,
    });
    expect(await sniffMedia(Buffer.from('a,b\n1,2\n'), 'x.csv', 'file')).to.deep.equal({
      contentType: 'text/csv',
      type: MediaType.DOCUMENT,
    });
  });

  it('refuses executables, XML/SVG, archives and unknown binaries, naming the file and the field', async () => {
    const cases: [Buffer, string][] = [
      [Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(56)]), 'a.png'],
      [Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>x</script></svg>'), 'a.svg'],
      [Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(60)]), 'a.zip'],
      [Buffer.from([0, 1, 2, 3, 0xff, 0xfe]), 'a.bin'],
    ];
    for (const [bytes, name] of cases) {
      const error = await refusal(sniffMedia(bytes, name, 'files.3'));
      expect(error.message).to.contain(name);
      expect(error.details).to.deep.include({ field: 'files.3' });
    }
  });

  it('shows images, video, audio and PDF inline; everything else downloads', () => {
    expect(['image/png', 'video/mp4', 'audio/mpeg', 'application/pdf'].every(isInlineSafe)).to.equal(true);
    expect(['text/plain', 'text/csv', 'application/rtf'].some(isInlineSafe)).to.equal(false);
  });

  it('keeps the last path segment of a file name without control characters', () => {
    expect(cleanFileName('../../etc/passwd')).to.equal('passwd');
    expect(cleanFileName('C:\\Users\\me\\cat.png')).to.equal('cat.png');
    expect(cleanFileName('a\u0000b"c\n.png')).to.equal('abc.png');
    expect(cleanFileName('   ')).to.equal('file');
    expect(cleanFileName('x'.repeat(300))).to.have.length(255);
  });

  it('enforces the size limit and the caption length, and hashes the bytes', async () => {
    const limits = { maxBytes: PNG.length, maxFiles: 10 };
    const upload = { fileName: 'a.png', declaredContentType: 'image/gif', content: PNG, caption: ' hi ' };
    const valid = await validUpload(upload, limits, 'file');
    expect(valid).to.deep.include({ contentType: 'image/png', caption: 'hi', declaredContentType: 'image/gif' });
    expect(valid.sha256).to.match(/^[0-9a-f]{64}$/);
    const tooBig = await refusal(
      validUpload({ ...upload, content: Buffer.concat([PNG, Buffer.from([0])]) }, limits, 'file'),
    );
    expect(tooBig.message).to.contain(`${PNG.length} bytes`);
    await refusal(validUpload({ ...upload, caption: 'c'.repeat(1001) }, limits, 'file'));
    await refusal(validUpload({ ...upload, content: Buffer.alloc(0) }, limits, 'file'));
  });
});

describe('LocalDiskBlobStore', () => {
  let root: string;
  let store: LocalDiskBlobStore;
  const key = `${newId()}/${newId()}`;

  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-blobs-'));
    store = new LocalDiskBlobStore(path.join(root, 'media'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const read = async (stream: NodeJS.ReadableStream) => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  it('writes whole blobs, reads them back, deletes idempotently', async () => {
    expect(await store.healthy()).to.equal(true);
    await store.put(key, PNG);
    const stream = await store.open(key);
    expect(stream).not.to.equal(undefined);
    expect((await read(stream as NodeJS.ReadableStream)).equals(PNG)).to.equal(true);
    expect(
      fs.readdirSync(path.join(root, 'media', key.split('/')[0] ?? '')).some((f) => f.endsWith('.partial')),
    ).to.equal(false);
    await store.delete(key);
    await store.delete(key);
    expect(await store.open(key)).to.equal(undefined);
  });

  it('replaces a blob atomically and refuses keys that could leave its directory', async () => {
    await store.put(key, Buffer.from('one'));
    await store.put(key, Buffer.from('two'));
    expect((await read((await store.open(key)) as NodeJS.ReadableStream)).toString()).to.equal('two');
    for (const bad of ['../x', `${newId()}/../../etc`, 'a/b', ''])
      try {
        await store.put(bad, PNG);
        expect.fail(`accepted ${bad}`);
      } catch (error) {
        expect((error as Error).message).to.contain('invalid blob key');
      }
  });
});
