import { expect } from 'chai';
import { ChannelType } from '@svc/proto/channels/v1';
import {
  PlatformCallError,
  SocialAppDAdapter,
  socialAppDConnectUrl,
  socialAppDPagesFromCode,
  type ConnectedChannel,
  type InboundRequest,
  type OutboundContent,
} from '@svc/channels/dist/src/platforms';
import { FakeSocialAppD, type SocialAppDPage } from '../fakes/social-app-d';
import { signHub } from '../fakes/graph-platform';

describe('SocialAppDAdapter against the Messenger-Platform-shaped fake', function () {
  const fake = new FakeSocialAppD();
  let adapter: SocialAppDAdapter;
  let page: SocialAppDPage;
  let channel: ConnectedChannel;
  const psid = '24000000000001';

  before(async () => {
    await fake.start();
    adapter = new SocialAppDAdapter({ baseUrl: fake.url, timeoutMs: 2000 });
    page = fake.page();
    channel = {
      channelId: 'ch-d',
      orgId: 'org-d',
      type: ChannelType.SOCIAL_APP_D,
      account: await adapter.validate(FakeSocialAppD.credentials(page)),
      credentials: FakeSocialAppD.credentials(page),
      webhookSecret: 'verify-token-d',
    };
  });
  after(() => fake.stop());

  const parse = (...messaging: Record<string, unknown>[]) =>
    adapter.parse(channel, Buffer.from(JSON.stringify(fake.webhook(page, messaging))));
  const send = (content: OutboundContent) => adapter.send(channel, { messageId: 'msg-d', recipient: psid, content });
  const lastBodies = (n: number) => fake.sent.slice(-n).map((m) => m.body);

  describe('validate', () => {
    it('answers the page as the account', () => {
      expect(channel.account).to.deep.equal({
        externalId: page.pageId,
        displayName: page.name,
        details: { appId: page.appId },
      });
    });

    it('refuses an unknown token (190, reauthorise) and a wrong app secret (100)', async () => {
      for (const [credentials, code] of [
        [{ ...FakeSocialAppD.credentials(page), pageAccessToken: 'EAAnot-a-real-page-token' }, '190'],
        [{ ...FakeSocialAppD.credentials(page), appSecret: 'c'.repeat(32) }, '100'],
      ] as const) {
        try {
          await adapter.validate(credentials);
          expect.fail('validated');
        } catch (error) {
          expect((error as PlatformCallError).error.code).to.equal(code);
        }
      }
    });

    it('refuses another page’s token for this page id', async () => {
      const other = fake.page();
      try {
        await adapter.validate({ ...FakeSocialAppD.credentials(other), pageId: page.pageId });
        expect.fail('validated');
      } catch (error) {
        expect(error).to.be.instanceOf(PlatformCallError);
      }
    });
  });

  describe('registerWebhook / unregisterWebhook', () => {
    it('points the app’s page webhook at our URL with our verify token and subscribes the page', async () => {
      await adapter.registerWebhook(channel, 'https://inbox.example/channels/in/ch-d');
      expect(page.appSubscription).to.deep.equal({
        callbackUrl: 'https://inbox.example/channels/in/ch-d',
        verifyToken: 'verify-token-d',
        fields: 'messages,messaging_postbacks,message_deliveries,message_reads',
      });
      expect(page.subscribedFields).to.equal('messages,messaging_postbacks,message_deliveries,message_reads');
      await adapter.unregisterWebhook(channel);
      expect(page.subscribedFields).to.equal(undefined);
    });
  });

  describe('verify and handshake', () => {
    it('accepts the X-Hub-Signature-256 of the app secret and refuses anything else', () => {
      const raw = Buffer.from(JSON.stringify(fake.webhook(page, [fake.text(page, psid, 'hi ✓')])));
      const request = (signature?: string): InboundRequest => ({
        method: 'POST',
        headers: signature ? { 'x-hub-signature-256': signature } : {},
        query: {},
        rawBody: raw,
      });
      expect(adapter.verify(channel, request(signHub(page.appSecret, raw)))).to.deep.equal({ ok: true });
      expect(adapter.verify(channel, request()).ok).to.equal(false);
      expect(adapter.verify(channel, request(signHub('d'.repeat(32), raw))).ok).to.equal(false);
    });

    it('echoes the challenge for our verify token only', () => {
      const get = (token: string): InboundRequest => ({
        method: 'GET',
        headers: {},
        query: { 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '42' },
        rawBody: Buffer.alloc(0),
      });
      expect(adapter.handshake(channel, get('verify-token-d'))).to.deep.equal({ status: 200, body: '42' });
      expect(adapter.handshake(channel, get('verify-token-x')).status).to.equal(403);
    });
  });

  describe('parse', () => {
    it('reads text, quick replies, postbacks, attachments and locations; skips echoes', () => {
      const image = fake.userFile('image/jpeg');
      const events = parse(
        fake.text(page, psid, 'Hello', 'm_1'),
        fake.event(page, psid, { message: { mid: 'm_2', text: 'Yes', quick_reply: { payload: 'YES' } } }),
        fake.postback(page, psid, 'Get Started', 'START', 'm_3'),
        fake.event(page, psid, {
          message: { mid: 'm_4', text: 'see', attachments: [{ type: 'image', payload: { url: image } }] },
        }),
        fake.event(page, psid, {
          message: {
            mid: 'm_5',
            attachments: [{ type: 'location', payload: { coordinates: { lat: 1.5, long: 2.5 } } }],
          },
        }),
        fake.event(page, psid, {
          message: { mid: 'm_6', attachments: [{ type: 'fallback', payload: { url: 'https://x' } }] },
        }),
        fake.event(page, psid, { message: { mid: 'm_7', text: 'ours', is_echo: true } }),
        fake.event(page, psid, { message: { mid: 'm_8', text: 'quoted', reply_to: { mid: 'm_0' } } }),
      );
      expect(events.map((e) => e.kind === 'message' && [e.platformMessageId, e.content])).to.deep.equal([
        ['m_1', { type: 'TEXT', text: 'Hello' }],
        ['m_2', { type: 'BUTTON_REPLY', text: 'Yes', payload: 'YES' }],
        ['m_3', { type: 'BUTTON_REPLY', text: 'Get Started', payload: 'START' }],
        ['m_4', { type: 'MEDIA', media: [{ ref: image }], caption: 'see' }],
        ['m_5', { type: 'LOCATION', latitude: 1.5, longitude: 2.5 }],
        ['m_6', { type: 'UNSUPPORTED', description: 'a fallback message' }],
        ['m_8', { type: 'TEXT', text: 'quoted' }],
      ]);
      expect(events[0]).to.deep.include({ from: { platformUserId: psid } });
      expect(events.at(-1)).to.deep.include({ replyToPlatformMessageId: 'm_0' });
    });

    it('reads deliveries (per mid when given, and the watermark) and reads (watermark)', () => {
      expect(
        parse(
          fake.delivery(page, psid, 1700000000000, ['m_a']),
          fake.delivery(page, psid, 1700000001000),
          fake.read(page, psid, 1700000002000),
        ),
      ).to.deep.equal([
        { kind: 'status', platformMessageId: 'm_a', status: 'DELIVERED', at: new Date(1700000000000) },
        { kind: 'watermark', platformUserId: psid, status: 'DELIVERED', upTo: new Date(1700000000000) },
        { kind: 'watermark', platformUserId: psid, status: 'DELIVERED', upTo: new Date(1700000001000) },
        { kind: 'watermark', platformUserId: psid, status: 'READ', upTo: new Date(1700000002000) },
      ]);
    });

    it('ignores another page’s entries and throws on a body that is not a page webhook', () => {
      const other = fake.page();
      const body = fake.webhook(other, [fake.text(other, psid, 'not ours')]);
      expect(adapter.parse(channel, Buffer.from(JSON.stringify(body)))).to.deep.equal([]);
      expect(() => adapter.parse(channel, Buffer.from('{"object":"whatsapp_business_account","entry":[]}'))).to.throw();
    });
  });

  it('fetchMedia downloads an attachment URL', async () => {
    const url = fake.userFile('video/mp4');
    const media = await adapter.fetchMedia(channel, { ref: url });
    expect(media.bytes.toString()).to.equal(fake.fileBytes(url));
    expect(media.mimeType).to.equal('video/mp4');
  });

  describe('send', () => {
    const base = { recipient: { id: psid }, messaging_type: 'RESPONSE' };
    it('sends text as a RESPONSE and answers the message id', async () => {
      const result = await send({ type: 'TEXT', text: 'Hi' });
      expect(result).to.deep.equal({ ok: true, platformMessageIds: [fake.sent.at(-1)!.id] });
      expect(lastBodies(1)).to.deep.equal([{ ...base, message: { text: 'Hi' } }]);
      expect(fake.received('POST', /\/messages$/).at(-1)!.headers.authorization).to.equal(
        `Bearer ${page.pageAccessToken}`,
      );
    });

    it('sends attachments by URL then the caption; location and contact card as text; buttons as quick replies', async () => {
      await send({
        type: 'MEDIA',
        caption: 'files',
        media: [
          { url: 'https://m.example/a.png', mimeType: 'image/png', fileName: 'a.png' },
          { url: 'https://m.example/b.pdf', mimeType: 'application/pdf', fileName: 'b.pdf' },
        ],
      });
      await send({ type: 'LOCATION', latitude: 1.5, longitude: 2.5, name: 'HQ' });
      await send({ type: 'CONTACT_CARD', name: 'Bo', phones: ['+1555'], emails: [] });
      await send({
        type: 'BUTTONS',
        text: 'Pick',
        buttons: [
          { id: 'a', title: 'A' },
          { id: 'b', title: 'B' },
        ],
      });
      expect(lastBodies(6).map((b) => b.message)).to.deep.equal([
        { attachment: { type: 'image', payload: { url: 'https://m.example/a.png', is_reusable: false } } },
        { attachment: { type: 'file', payload: { url: 'https://m.example/b.pdf', is_reusable: false } } },
        { text: 'files' },
        { text: 'HQ\nhttps://maps.google.com/?q=1.5,2.5' },
        { text: 'Bo\n+1555' },
        {
          text: 'Pick',
          quick_replies: [
            { content_type: 'text', title: 'A', payload: 'a' },
            { content_type: 'text', title: 'B', payload: 'b' },
          ],
        },
      ]);
    });

    it('refuses a template and too many quick replies without calling the platform', async () => {
      const before = fake.sent.length;
      expect(await send({ type: 'TEMPLATE', name: 't', language: 'en', components: [] })).to.deep.include({
        ok: false,
      });
      const many = Array.from({ length: 14 }, (_, n) => ({ id: `${n}`, title: `${n}` }));
      expect(await send({ type: 'BUTTONS', text: 'x', buttons: many })).to.deep.include({ ok: false });
      expect(fake.sent.length).to.equal(before);
    });
  });

  describe('error classification', () => {
    const table: [string, number, number | undefined, number, Record<string, unknown>][] = [
      ['rate limit 613', 400, undefined, 613, { transient: true }],
      ['page rate limit 32', 400, undefined, 32, { transient: true }],
      ['temporarily unavailable 2', 503, undefined, 2, { transient: true }],
      ['outside the window 10/2018278', 400, 2018278, 10, { transient: false, windowClosed: true }],
      ['user unavailable 551', 400, undefined, 551, { transient: false }],
      ['token 190', 401, undefined, 190, { transient: false, reauthorize: true }],
      ['permission 200', 403, undefined, 200, { transient: false }],
    ];
    for (const [name, status, subcode, code, expected] of table) {
      it(`classifies ${name}`, async () => {
        fake.failNext((r) => r.path.endsWith('/messages'), {
          status,
          body: {
            error: {
              message: name,
              type: 'OAuthException',
              code,
              ...(subcode ? { error_subcode: subcode } : {}),
              fbtrace_id: 'A',
            },
          },
        });
        const result = await send({ type: 'TEXT', text: 'x' });
        expect(!result.ok && result.error).to.deep.include({ code: String(code), ...expected });
      });
    }
  });
});

describe('SocialAppD hosted connect (Facebook Login) against the fake', function () {
  const fake = new FakeSocialAppD();
  let adapter: SocialAppDAdapter;
  before(async () => {
    await fake.start();
    adapter = new SocialAppDAdapter({ baseUrl: fake.url, timeoutMs: 2000 });
  });
  after(() => fake.stop());

  it('builds the dialog URL with the page permissions, and the code yields the pages with their page tokens', async () => {
    const redirectUri = 'https://inbox.example/channels/connect/callback';
    const page = fake.page();
    fake.consentAs(page);
    const url = socialAppDConnectUrl({ ...fake.app, redirectUri, state: 'st', dialogUrl: fake.dialogUrl });
    expect(new URL(url).searchParams.get('scope')).to.equal('pages_show_list,pages_messaging,pages_manage_metadata');
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    const pages = await socialAppDPagesFromCode(adapter, fake.app, {
      code: back.searchParams.get('code')!,
      redirectUri,
    });
    expect(pages).to.deep.equal([{ credentials: FakeSocialAppD.credentials(page), name: page.name }]);
    const exchanges = fake.received('GET', /^\/oauth\/access_token$/).map((r) => r.query.get('grant_type'));
    expect(exchanges).to.deep.equal([null, 'fb_exchange_token']);
    expect((await adapter.validate(pages[0]!.credentials)).externalId).to.equal(page.pageId);
  });

  it('answers the person refusing as an error redirect (no code)', async () => {
    const fresh = new FakeSocialAppD();
    await fresh.start();
    try {
      const url = socialAppDConnectUrl({
        ...fresh.app,
        redirectUri: 'https://x.example/cb',
        state: 'st',
        dialogUrl: fresh.dialogUrl,
      });
      const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
      expect([
        back.searchParams.get('error'),
        back.searchParams.get('code'),
        back.searchParams.get('state'),
      ]).to.deep.equal(['access_denied', null, 'st']);
    } finally {
      await fresh.stop();
    }
  });
});
