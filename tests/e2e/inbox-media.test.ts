import * as http from 'node:http';
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ApiScope, newId } from '@svc/kit';
import { SAMPLES } from '../support/media-samples';
import { ALL_SCOPES_BUT_PARTNER, StackHarness, type TestOrg } from '../support/stack-harness';
import { ChannelSimulator, PAGE, dataOf, expectError, type Page } from './inbox-fixtures';

const MEDIA_FIELDS =
  '_id type contentType fileName sizeBytes sha256 url urlExpiresAt caption uploaderType uploaderId createdAt messageId chatId attachedAt';
const CREATE = `mutation($f: File!, $i: CreateMediaInput) { createMedia(file: $f, input: $i) { ${MEDIA_FIELDS} } }`;
const UPLOAD_MANY = `mutation($fs: [File!]!) { uploadMultipleMedia(files: $fs) { ${MEDIA_FIELDS} } }`;
const ALL = `query($t: MediaType, $i: GetCursorPaginatedInput) { allMedia(type: $t, input: $i) ${PAGE(MEDIA_FIELDS)} }`;
const CHAT_MEDIA = `query($c: String!, $t: MediaType, $i: PaginateMessagesInput) {
  getChatMedia(chatId: $c, type: $t, input: $i) ${PAGE(MEDIA_FIELDS)} }`;
const CONVERSATION_MEDIA = `query($c: String!, $t: MediaType, $i: PaginateMessagesInput) {
  conversationMedia(conversationId: $c, type: $t, input: $i) ${PAGE(MEDIA_FIELDS)} }`;
const COUNTS = 'image video audio document total';
const CHAT_COUNTS = `query($c: String!) { getChatMediaCounts(chatId: $c) { ${COUNTS} } }`;
const CONVERSATION_COUNTS = `query($c: String!) { conversationMediaCounts(conversationId: $c) { ${COUNTS} } }`;
const DELETE = 'mutation($m: String!) { deleteMedia(mediaId: $m) { mediaId ok detachedCount } }';
const SEND_MEDIA = `mutation($c: String!, $ids: [String!]!, $t: String!) {
  sendMessage(chatId: $c, input: { type: MEDIA, mediaIds: $ids, text: $t }) {
    _id mediaIds media { _id url contentType } } }`;

interface MediaView {
  _id: string;
  type: string;
  contentType: string;
  fileName: string;
  sizeBytes: number;
  sha256: string;
  url: string;
  urlExpiresAt: string;
  caption: string | null;
  uploaderType: string;
  uploaderId: string | null;
  messageId: string | null;
  chatId: string | null;
  attachedAt: string | null;
}
type Counts = { image: number; video: number; audio: number; document: number; total: number };

describe('Inbox media (whole stack over HTTP, multipart uploads)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let other: TestOrg;
  let key: string;
  let keyId: string;
  let otherKey: string;
  let channels: ChannelSimulator;

  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    harness.graphql<T>(query, variables, as).then(dataOf);

  const createMedia = (bytes: Buffer, name: string, type?: string, input?: Record<string, unknown>, as = key) =>
    harness.upload<{ createMedia: MediaView }>(
      CREATE,
      { f: null, i: input },
      { 'variables.f': { bytes, name, type } },
      as,
    );

  async function created(bytes: Buffer, name: string, type?: string, as = key): Promise<MediaView> {
    return dataOf(await createMedia(bytes, name, type, undefined, as)).createMedia;
  }

  const fetchLink = (url: string) => fetch(url.startsWith('/') ? `${harness.url}${url}` : url);

  async function allIds(as = key): Promise<string[]> {
    const page = await gql<{ allMedia: Page<MediaView> }>(ALL, { i: { limit: 100 } }, as);
    return page.allMedia.data.map((m) => m._id);
  }

  before(async function () {
    this.timeout(120_000);
    await harness.start();
    org = await harness.newOrg();
    other = await harness.newOrg('Other');
    ({ key, id: keyId } = await org.mintKey(ALL_SCOPES_BUT_PARTNER));
    otherKey = (await other.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
    channels = new ChannelSimulator(harness, org);
  });

  after(async function () {
    this.timeout(60_000);
    await harness.stop();
  });

  describe('createMedia', function () {
    it('stores the bytes, sniffs the type instead of trusting the declared one, and serves them by signed link', async function () {
      const media = dataOf(
        await createMedia(SAMPLES.png, '../../etc/cat.png', 'application/pdf', { caption: ' the cat ' }),
      ).createMedia;
      expect(media).to.include({
        type: 'IMAGE',
        contentType: 'image/png',
        fileName: 'cat.png',
        sizeBytes: SAMPLES.png.length,
        sha256: createHash('sha256').update(SAMPLES.png).digest('hex'),
        caption: 'the cat',
        uploaderType: 'API_KEY',
        uploaderId: keyId,
        messageId: null,
      });
      expect(new Date(media.urlExpiresAt).getTime()).to.be.greaterThan(Date.now());
      const response = await fetchLink(media.url);
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.equal('image/png');
      expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(response.headers.get('content-security-policy')).to.contain('sandbox');
      expect(response.headers.get('content-disposition')).to.match(/^inline; filename="cat.png"/);
      expect(Buffer.from(await response.arrayBuffer()).equals(SAMPLES.png)).to.equal(true);
    });

    it('files each accepted kind under its media type; text downloads as an attachment', async function () {
      const kinds: [Buffer, string, string, string][] = [
        [SAMPLES.jpeg, 'photo.jpg', 'IMAGE', 'image/jpeg'],
        [SAMPLES.mp4, 'clip.mp4', 'VIDEO', 'video/mp4'],
        [SAMPLES.mp3, 'voice.mp3', 'AUDIO', 'audio/mpeg'],
        [SAMPLES.pdf, 'invoice.pdf', 'DOCUMENT', 'application/pdf'],
        [SAMPLES.text, 'notes.txt', 'DOCUMENT', 'text/plain'],
        [SAMPLES.text, 'orders.csv', 'DOCUMENT', 'text/csv'],
      ];
      for (const [bytes, name, type, contentType] of kinds)
        expect(await created(bytes, name, 'application/octet-stream'), name).to.include({ type, contentType });
      const text = await created(SAMPLES.text, 'page.html', 'text/html');
      const response = await fetchLink(text.url);
      expect(response.headers.get('content-type')).to.match(/^text\/plain/);
      expect(response.headers.get('content-disposition')).to.match(/^attachment; filename="page.html"/);
    });

    it('refuses executables, unknown binaries and empty files, storing nothing', async function () {
      const before = await allIds();
      for (const [bytes, name] of [
        [SAMPLES.elf, 'tool'],
        [SAMPLES.windowsExe, 'invoice.pdf'],
        [SAMPLES.binaryJunk, 'data.bin'],
        [Buffer.alloc(0), 'empty.png'],
      ] as const) {
        const response = await createMedia(bytes, name, 'image/png');
        expectError(response, 200, 'BAD_USER_INPUT');
        expect(response.body.errors?.[0]?.message).to.contain(name);
      }
      expect(await allIds()).to.deep.equal(before);
    });

    it('stops a file over the size limit at the gateway (413), storing nothing', async function () {
      this.timeout(30_000);
      const before = await allIds();
      const response = await createMedia(Buffer.alloc(16 * 1024 * 1024 + 1, 0x41), 'big.txt', 'text/plain');
      expectError(response, 413, 'REQUEST_ENTITY_TOO_LARGE');
      expect(await allIds()).to.deep.equal(before);
    });

    it('needs MESSAGES_SEND', async function () {
      const readOnly = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
      expectError(await createMedia(SAMPLES.png, 'a.png', 'image/png', undefined, readOnly), 403, 'FORBIDDEN');
    });

    it('refuses a request without a file', async function () {
      const response = await harness.graphql(CREATE, { f: null }, key);
      expect(response.body.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    });
  });

  describe('uploadMultipleMedia', function () {
    it('stores every file, in order', async function () {
      const response = await harness.upload<{ uploadMultipleMedia: MediaView[] }>(
        UPLOAD_MANY,
        { fs: [null, null, null] },
        {
          'variables.fs.0': { bytes: SAMPLES.png, name: 'one.png' },
          'variables.fs.1': { bytes: SAMPLES.pdf, name: 'two.pdf' },
          'variables.fs.2': { bytes: SAMPLES.text, name: 'three.txt' },
        },
        key,
      );
      const media = dataOf(response).uploadMultipleMedia;
      expect(media.map((m) => [m.fileName, m.type])).to.deep.equal([
        ['one.png', 'IMAGE'],
        ['two.pdf', 'DOCUMENT'],
        ['three.txt', 'DOCUMENT'],
      ]);
    });

    it('is all or nothing: one refused file refuses the call and names it', async function () {
      const before = await allIds();
      const response = await harness.upload(
        UPLOAD_MANY,
        { fs: [null, null] },
        {
          'variables.fs.0': { bytes: SAMPLES.png, name: 'ok.png' },
          'variables.fs.1': { bytes: SAMPLES.elf, name: 'evil' },
        },
        key,
      );
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(response.body.errors?.[0]?.message).to.contain('evil');
      expect(response.body.errors?.[0]?.extensions?.field).to.equal('files.1');
      expect(await allIds()).to.deep.equal(before);
    });

    it('takes a request above Yoga’s 25 MB default when every file is within the limits (2 × 13 MiB)', async function () {
      this.timeout(60_000);
      const big = (fill: number) => Buffer.alloc(13 * 1024 * 1024, fill);
      const response = await harness.upload<{ uploadMultipleMedia: MediaView[] }>(
        UPLOAD_MANY,
        { fs: [null, null] },
        {
          'variables.fs.0': { bytes: big(0x41), name: 'a.txt', type: 'text/plain' },
          'variables.fs.1': { bytes: big(0x42), name: 'b.txt', type: 'text/plain' },
        },
        key,
      );
      expect(dataOf(response).uploadMultipleMedia.map((m) => [m.fileName, m.sizeBytes])).to.deep.equal([
        ['a.txt', 13 * 1024 * 1024],
        ['b.txt', 13 * 1024 * 1024],
      ]);
    });

    it('refuses a multipart request whose declared length exceeds 10 × 16 MiB before reading it (413)', async function () {
      const declared = 10 * 16 * 1024 * 1024 + 1024 * 1024 + 1;
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request(`${harness.url}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'multipart/form-data; boundary=svc',
            'content-length': String(declared),
            authorization: `Bearer ${key}`,
          },
        });
        request.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body });
            request.destroy();
          });
        });
        request.on('error', reject);
        request.write('--svc\r\n');
      });
      expect(response.status).to.equal(413);
      expect(JSON.parse(response.body).errors[0].extensions.code).to.equal('REQUEST_ENTITY_TOO_LARGE');
    });

    it('refuses more than 10 files and an empty list', async function () {
      const files = Object.fromEntries(
        Array.from({ length: 11 }, (_, i) => [`variables.fs.${i}`, { bytes: SAMPLES.text, name: `f${i}.txt` }]),
      );
      const tooMany = await harness.upload(UPLOAD_MANY, { fs: Array.from({ length: 11 }, () => null) }, files, key);
      // The gateway's multipart parser stops at the file-count limit: the request is malformed, nothing runs.
      expectError(tooMany, 400, 'BAD_REQUEST');
      expect(tooMany.body.errors?.[0]?.message).to.contain('Files limit exceeded: 10');
      expectError(await harness.graphql(UPLOAD_MANY, { fs: [] }, key), 200, 'BAD_USER_INPUT');
    });
  });

  describe('media in messages', function () {
    it('sendMessage MEDIA attaches library media and shows it with signed links; unknown or foreign ids are NOT_FOUND', async function () {
      const chat = await channels.openChat();
      const image = await created(SAMPLES.png, 'a.png');
      const sent = await gql<{ sendMessage: { mediaIds: string[]; media: { _id: string; url: string }[] } }>(
        SEND_MEDIA,
        { c: chat._id, ids: [image._id], t: 'look' },
      );
      expect(sent.sendMessage.mediaIds).to.deep.equal([image._id]);
      expect(sent.sendMessage.media[0]?._id).to.equal(image._id);
      expect((await fetchLink(sent.sendMessage.media[0]?.url ?? '')).status).to.equal(200);
      const foreign = await created(SAMPLES.png, 'theirs.png', undefined, otherKey);
      for (const id of [newId(), foreign._id]) {
        const refused = await harness.graphql(SEND_MEDIA, { c: chat._id, ids: [id], t: 'x' }, key);
        expectError(refused, 200, 'NOT_FOUND');
        expect(refused.body.errors?.[0]?.extensions?.field).to.equal('input.mediaIds');
      }
    });

    it('an internal note cannot carry media', async function () {
      const chat = await channels.openChat();
      const image = await created(SAMPLES.png, 'a.png');
      const response = await harness.graphql(
        'mutation($c: String!, $ids: [String!]!) { sendMessage(chatId: $c, input: { type: MEDIA, internal: true, mediaIds: $ids, text: "" }) { _id } }',
        { c: chat._id, ids: [image._id] },
        key,
      );
      expectError(response, 200, 'BAD_USER_INPUT');
    });
  });

  describe('chat and conversation media', function () {
    it('lists attachments oldest first with their message, filters by type, counts by type, pages both ways', async function () {
      const contactId = newId();
      const first = await channels.openChat({ contactId });
      const second = await channels.openChat({ contactId });
      const image = await created(SAMPLES.png, 'i.png');
      const pdf = await created(SAMPLES.pdf, 'd.pdf');
      const clip = await created(SAMPLES.mp4, 'v.mp4');
      const m1 = await gql<{ sendMessage: { _id: string } }>(SEND_MEDIA, {
        c: first._id,
        ids: [image._id, pdf._id],
        t: '',
      });
      const m2 = await gql<{ sendMessage: { _id: string } }>(SEND_MEDIA, {
        c: second._id,
        ids: [clip._id, image._id],
        t: '',
      });

      const chatMedia = await gql<{ getChatMedia: Page<MediaView> }>(CHAT_MEDIA, { c: first._id });
      expect(chatMedia.getChatMedia.data.map((m) => [m._id, m.messageId, m.chatId])).to.have.deep.members([
        [image._id, m1.sendMessage._id, first._id],
        [pdf._id, m1.sendMessage._id, first._id],
      ]);
      const images = await gql<{ getChatMedia: Page<MediaView> }>(CHAT_MEDIA, { c: first._id, t: 'IMAGE' });
      expect(images.getChatMedia.data.map((m) => m._id)).to.deep.equal([image._id]);

      const counts = await gql<{ getChatMediaCounts: Counts }>(CHAT_COUNTS, { c: first._id });
      expect(counts.getChatMediaCounts).to.deep.equal({ image: 1, video: 0, audio: 0, document: 1, total: 2 });
      const all = await gql<{ conversationMediaCounts: Counts }>(CONVERSATION_COUNTS, { c: first.conversationId });
      expect(all.conversationMediaCounts).to.deep.equal({ image: 2, video: 1, audio: 0, document: 1, total: 4 });

      const forward: string[] = [];
      let page = (
        await gql<{ conversationMedia: Page<MediaView> }>(CONVERSATION_MEDIA, {
          c: first.conversationId,
          i: { limit: 1 },
        })
      ).conversationMedia;
      forward.push(...page.data.map((m) => `${m.messageId}/${m._id}`));
      while (page.hasNext) {
        page = (
          await gql<{ conversationMedia: Page<MediaView> }>(CONVERSATION_MEDIA, {
            c: first.conversationId,
            i: { limit: 1, cursor: page.nextCursor },
          })
        ).conversationMedia;
        forward.push(...page.data.map((m) => `${m.messageId}/${m._id}`));
      }
      expect(forward).to.have.length(4);
      expect(new Set(forward).size).to.equal(4);
      expect(forward.slice(2).every((item) => item.startsWith(m2.sendMessage._id))).to.equal(true);
      const backward: string[] = [];
      page = (
        await gql<{ conversationMedia: Page<MediaView> }>(CONVERSATION_MEDIA, {
          c: first.conversationId,
          i: { limit: 1, isBefore: true },
        })
      ).conversationMedia;
      backward.unshift(...page.data.map((m) => `${m.messageId}/${m._id}`));
      while (page.hasPrevious) {
        page = (
          await gql<{ conversationMedia: Page<MediaView> }>(CONVERSATION_MEDIA, {
            c: first.conversationId,
            i: { limit: 1, isBefore: true, cursor: page.previousCursor },
          })
        ).conversationMedia;
        backward.unshift(...page.data.map((m) => `${m.messageId}/${m._id}`));
      }
      expect(backward).to.deep.equal(forward);
    });

    it('a deleted message no longer shows its media in chat reads and counts; the library keeps it', async function () {
      const chat = await channels.openChat();
      const image = await created(SAMPLES.png, 'gone.png');
      const sent = await gql<{ sendMessage: { _id: string } }>(SEND_MEDIA, { c: chat._id, ids: [image._id], t: '' });
      await gql('mutation($m: String!) { deleteMessage(messageId: $m) { _id } }', { m: sent.sendMessage._id });
      expect(
        (await gql<{ getChatMedia: Page<MediaView> }>(CHAT_MEDIA, { c: chat._id })).getChatMedia.data,
      ).to.deep.equal([]);
      expect(
        (await gql<{ getChatMediaCounts: Counts }>(CHAT_COUNTS, { c: chat._id })).getChatMediaCounts.total,
      ).to.equal(0);
      expect(await allIds()).to.include(image._id);
    });

    it('refuses bad input: unknown ids, malformed ids, limits out of range, bad cursors', async function () {
      const chat = await channels.openChat();
      expectError(await harness.graphql(CHAT_MEDIA, { c: newId() }, key), 200, 'NOT_FOUND');
      expectError(await harness.graphql(CONVERSATION_MEDIA, { c: newId() }, key), 200, 'NOT_FOUND');
      expectError(await harness.graphql(CHAT_COUNTS, { c: 'nope' }, key), 200, 'BAD_USER_INPUT');
      expectError(await harness.graphql(CONVERSATION_COUNTS, { c: newId() }, key), 200, 'NOT_FOUND');
      expectError(await harness.graphql(CHAT_MEDIA, { c: chat._id, i: { limit: -1 } }, key), 200, 'BAD_USER_INPUT');
      expectError(await harness.graphql(ALL, { i: { limit: 101 } }, key), 200, 'BAD_USER_INPUT');
      expectError(await harness.graphql(ALL, { i: { cursor: 'garbage' } }, key), 200, 'BAD_USER_INPUT');
      const wrongType = await harness.graphql(CHAT_MEDIA, { c: chat._id, t: 'SPREADSHEET' }, key);
      expect(wrongType.body.errors?.[0]?.extensions?.code).to.equal('BAD_USER_INPUT');
    });

    it('needs MESSAGES_READ', async function () {
      const sendOnly = (await org.mintKey([ApiScope.MESSAGES_SEND])).key;
      const chat = await channels.openChat();
      for (const [query, variables] of [
        [ALL, {}],
        [CHAT_MEDIA, { c: chat._id }],
        [CONVERSATION_MEDIA, { c: chat.conversationId }],
        [CHAT_COUNTS, { c: chat._id }],
        [CONVERSATION_COUNTS, { c: chat.conversationId }],
      ] as const)
        expectError(await harness.graphql(query, variables, sendOnly), 403, 'FORBIDDEN');
    });
  });

  describe('allMedia', function () {
    it('is the org library, newest first, filtered by type, paging both ways without skips or repeats', async function () {
      const fresh = await harness.newOrg('Library');
      const libraryKey = (await fresh.mintKey(ALL_SCOPES_BUT_PARTNER)).key;
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1)
        ids.push((await created(i % 2 ? SAMPLES.pdf : SAMPLES.png, `f${i}`, undefined, libraryKey))._id);
      const newestFirst = [...ids].reverse();
      const seen: string[] = [];
      let page = (await gql<{ allMedia: Page<MediaView> }>(ALL, { i: { limit: 2 } }, libraryKey)).allMedia;
      seen.push(...page.data.map((m) => m._id));
      while (page.hasNext) {
        page = (await gql<{ allMedia: Page<MediaView> }>(ALL, { i: { limit: 2, cursor: page.nextCursor } }, libraryKey))
          .allMedia;
        seen.push(...page.data.map((m) => m._id));
      }
      expect(seen).to.deep.equal(newestFirst);
      const back = (
        await gql<{ allMedia: Page<MediaView> }>(
          ALL,
          { i: { limit: 2, before: true, cursor: page.previousCursor } },
          libraryKey,
        )
      ).allMedia;
      expect(back.data.map((m) => m._id)).to.deep.equal(newestFirst.slice(2, 4));
      const docs = (await gql<{ allMedia: Page<MediaView> }>(ALL, { t: 'DOCUMENT' }, libraryKey)).allMedia;
      expect(docs.data.map((m) => m._id)).to.deep.equal([ids[3], ids[1]]);
    });

    it('never shows another org’s media', async function () {
      const mine = await created(SAMPLES.png, 'mine.png');
      expect(await allIds(otherKey)).not.to.include(mine._id);
      const theirChat = await new ChannelSimulator(harness, other).openChat();
      expectError(await harness.graphql(CHAT_MEDIA, { c: theirChat._id }, key), 200, 'NOT_FOUND');
      expectError(await harness.graphql(CHAT_COUNTS, { c: theirChat._id }, key), 200, 'NOT_FOUND');
      expectError(await harness.graphql(CONVERSATION_MEDIA, { c: theirChat.conversationId }, key), 200, 'NOT_FOUND');
      expectError(await harness.graphql(DELETE, { m: mine._id }, otherKey), 200, 'NOT_FOUND');
    });
  });

  describe('deleteMedia', function () {
    it('removes it from the library, from every message and from storage', async function () {
      const chat = await channels.openChat();
      const image = await created(SAMPLES.png, 'bye.png');
      const sent = await gql<{ sendMessage: { _id: string } }>(SEND_MEDIA, { c: chat._id, ids: [image._id], t: '' });
      const deleted = await gql<{ deleteMedia: { mediaId: string; ok: boolean; detachedCount: number } }>(DELETE, {
        m: image._id,
      });
      expect(deleted.deleteMedia).to.deep.equal({ mediaId: image._id, ok: true, detachedCount: 1 });
      expect(await allIds()).not.to.include(image._id);
      const messages = await gql<{ getMessages: Page<{ _id: string; mediaIds: string[]; media: unknown[] }> }>(
        'query($c: String!) { getMessages(chatId: $c) { data { _id mediaIds media { _id } } } }',
        { c: chat._id },
      );
      const message = messages.getMessages.data.find((m) => m._id === sent.sendMessage._id);
      expect(message).to.deep.include({ mediaIds: [], media: [] });
      expect((await fetchLink(image.url)).status).to.equal(404);
      expectError(await harness.graphql(DELETE, { m: image._id }, key), 200, 'NOT_FOUND');
    });

    it('refuses malformed ids and needs MESSAGES_SEND', async function () {
      expectError(await harness.graphql(DELETE, { m: 'x' }, key), 200, 'BAD_USER_INPUT');
      const image = await created(SAMPLES.png, 'keep.png');
      const readOnly = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
      expectError(await harness.graphql(DELETE, { m: image._id }, readOnly), 403, 'FORBIDDEN');
    });
  });

  describe('apiDeleteChat', function () {
    it('deletes the media only that thread showed, keeping media another thread still shows', async function () {
      const doomed = await channels.openChat();
      const kept = await channels.openChat();
      const onlyHere = await created(SAMPLES.png, 'only.png');
      const shared = await created(SAMPLES.pdf, 'shared.pdf');
      await gql(SEND_MEDIA, { c: doomed._id, ids: [onlyHere._id, shared._id], t: '' });
      await gql(SEND_MEDIA, { c: kept._id, ids: [shared._id], t: '' });
      await gql('mutation($c: String!) { apiDeleteChat(chatId: $c) { chatId } }', { c: doomed._id });
      const library = await allIds();
      expect(library).not.to.include(onlyHere._id);
      expect(library).to.include(shared._id);
      expect((await fetchLink(onlyHere.url)).status).to.equal(404);
      expect((await fetchLink(shared.url)).status).to.equal(200);
      const counts = await gql<{ getChatMediaCounts: Counts }>(CHAT_COUNTS, { c: kept._id });
      expect(counts.getChatMediaCounts.total).to.equal(1);
    });
  });

  describe('signed links', function () {
    it('refuse a tampered signature, another media id and a missing signature', async function () {
      const image = await created(SAMPLES.png, 'secret.png');
      const other = await created(SAMPLES.png, 'other.png');
      const url = new URL(image.url, harness.url);
      const tampered = new URL(url);
      tampered.searchParams.set('signature', `${url.searchParams.get('signature')?.slice(0, -2)}AA`);
      const moved = new URL(url);
      moved.pathname = `/media/${other._id}`;
      const unsigned = new URL(url);
      unsigned.search = '';
      const later = new URL(url);
      later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      for (const link of [tampered, moved, unsigned, later]) {
        const response = await fetch(link);
        expect(response.status, link.toString()).to.equal(403);
        expect(((await response.json()) as { code: string }).code).to.equal('FORBIDDEN');
      }
    });
  });
});
