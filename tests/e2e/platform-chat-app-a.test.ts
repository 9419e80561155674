import { expect } from 'chai';
import { ChannelType } from '@svc/proto/channels/v1';
import {
  ChatAppAAdapter,
  PlatformCallError,
  chatAppAConnectUrl,
  chatAppANumbersFromCode,
  type ConnectedChannel,
  type InboundRequest,
  type OutboundContent,
  type PlatformAccount,
} from '@svc/channels/dist/src/platforms';
import { FakeChatAppA, type ChatAppAAccount } from '../fakes/chat-app-a';
import { signHub } from '../fakes/graph-platform';

describe('ChatAppAAdapter against the WhatsApp-Cloud-API-shaped fake', function () {
  const fake = new FakeChatAppA();
  let adapter: ChatAppAAdapter;
  let account: ChatAppAAccount;
  let validated: PlatformAccount;
  let channel: ConnectedChannel;
  const user = '15550001111';

  before(async () => {
    await fake.start();
    adapter = new ChatAppAAdapter({ baseUrl: fake.url, timeoutMs: 2000 });
    account = fake.account();
    validated = await adapter.validate(FakeChatAppA.credentials(account));
    channel = {
      channelId: 'ch-a',
      orgId: 'org-a',
      type: ChannelType.CHAT_APP_A,
      account: validated,
      credentials: FakeChatAppA.credentials(account),
      webhookSecret: 'verify-token-of-the-channel',
    };
  });
  after(() => fake.stop());

  const post = (body: unknown, signature?: string): InboundRequest => {
    const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    return {
      method: 'POST',
      headers: { 'x-hub-signature-256': signature ?? signHub(account.appSecret, raw) },
      query: {},
      rawBody: raw,
    };
  };
  const parse = (body: unknown) => adapter.parse(channel, Buffer.from(JSON.stringify(body)));
  const inbound = (type: string, part: unknown, extra = {}) =>
    parse(
      fake.messagesWebhook(account, {
        messages: [fake.inboundMessage(user, type, part, extra)],
        names: { [user]: 'Ada' },
      }),
    );
  const failure = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      expect(error).to.be.instanceOf(PlatformCallError);
      return (error as PlatformCallError).error;
    }
    throw new Error('expected a PlatformCallError');
  };

  describe('validate', () => {
    it('answers the number as the account, with its business account id', () => {
      expect(validated).to.deep.equal({
        externalId: account.phoneNumberId,
        displayName: account.displayPhoneNumber,
        details: { businessAccountId: account.businessAccountId, verifiedName: account.verifiedName },
      });
      const call = fake.received('GET', new RegExp(`^/${account.phoneNumberId}$`))[0]!;
      expect(call.headers.authorization).to.equal(`Bearer ${account.accessToken}`);
      expect(call.query.get('appsecret_proof')).to.match(/^[0-9a-f]{64}$/);
    });

    it('refuses an unknown token as needing reauthorisation (190)', async () => {
      const error = await failure(
        adapter.validate({ ...FakeChatAppA.credentials(account), accessToken: 'EAAnot-a-real-token-at-all' }),
      );
      expect(error).to.include({ code: '190', transient: false, reauthorize: true });
    });

    it('refuses a wrong app secret through appsecret_proof (100)', async () => {
      const error = await failure(
        adapter.validate({ ...FakeChatAppA.credentials(account), appSecret: 'a'.repeat(32) }),
      );
      expect(error).to.include({ code: '100', transient: false });
      expect(error.message).to.contain('appsecret_proof');
    });

    it('refuses a number that is not in the business account', async () => {
      const other = fake.account();
      const error = await failure(
        adapter.validate({ ...FakeChatAppA.credentials(other), businessAccountId: account.businessAccountId }),
      );
      expect(error.transient).to.equal(false);
    });

    it('refuses malformed credentials naming the field, without calling the platform', async () => {
      const before = fake.requests.length;
      const result = adapter.credentialsSchema.safeParse({
        ...FakeChatAppA.credentials(account),
        phoneNumberId: 'abc',
      });
      expect(result.success).to.equal(false);
      expect(result.error!.issues[0]!.path).to.deep.equal(['phoneNumberId']);
      expect(
        adapter.credentialsSchema.safeParse({ ...FakeChatAppA.credentials(account), extra: 'x' }).success,
      ).to.equal(false);
      expect(fake.requests.length).to.equal(before);
    });
  });

  describe('registerWebhook / unregisterWebhook', () => {
    it('subscribes the business account with our URL as override_callback_uri and our verify token', async () => {
      await adapter.registerWebhook(channel, 'https://inbox.example/channels/in/ch-a');
      expect(account.subscription).to.deep.equal({
        overrideCallbackUri: 'https://inbox.example/channels/in/ch-a',
        verifyToken: 'verify-token-of-the-channel',
      });
    });

    it('unsubscribes the business account', async () => {
      await adapter.registerWebhook(channel, 'https://inbox.example/channels/in/ch-a');
      await adapter.unregisterWebhook(channel);
      expect(account.subscription).to.equal(undefined);
    });
  });

  describe('handshake', () => {
    const get = (query: Record<string, string>): InboundRequest => ({
      method: 'GET',
      headers: {},
      query,
      rawBody: Buffer.alloc(0),
    });
    it('echoes hub.challenge when the verify token is the channel’s', () => {
      const answer = adapter.handshake(
        channel,
        get({ 'hub.mode': 'subscribe', 'hub.verify_token': channel.webhookSecret, 'hub.challenge': '1158201444' }),
      );
      expect(answer).to.deep.equal({ status: 200, body: '1158201444' });
    });
    it('refuses another token, another mode or no challenge with 403', () => {
      const queries: Record<string, string>[] = [
        { 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' },
        { 'hub.mode': 'unsubscribe', 'hub.verify_token': channel.webhookSecret, 'hub.challenge': '1' },
        { 'hub.mode': 'subscribe', 'hub.verify_token': channel.webhookSecret },
      ];
      for (const query of queries) expect(adapter.handshake(channel, get(query)).status).to.equal(403);
    });
  });

  describe('verify', () => {
    const body = () =>
      fake.messagesWebhook(account, { messages: [fake.inboundMessage(user, 'text', { body: 'hi é ✓' })] });
    it('accepts the platform’s X-Hub-Signature-256 over the raw body', () => {
      expect(adapter.verify(channel, post(body()))).to.deep.equal({ ok: true });
    });
    it('refuses a missing, a wrong-secret, a truncated signature and a body changed after signing', () => {
      const raw = JSON.stringify(body());
      const refused = [
        { ...post(raw), headers: {} },
        post(raw, signHub('b'.repeat(32), raw)),
        post(raw, signHub(account.appSecret, raw).slice(0, 30)),
        { ...post(raw), rawBody: Buffer.from(raw.replace('hi', 'ho')) },
      ];
      for (const request of refused) expect(adapter.verify(channel, request).ok).to.equal(false);
    });
  });

  describe('parse', () => {
    it('reads a text message with the sender’s wa_id, phone and profile name', () => {
      const [event] = inbound(
        'text',
        { body: 'Hello' },
        { id: 'wamid.T1', timestamp: 1700000000, context: { from: account.phoneNumberId, id: 'wamid.ours' } },
      );
      expect(event).to.deep.equal({
        kind: 'message',
        platformMessageId: 'wamid.T1',
        from: { platformUserId: user, phone: `+${user}`, name: 'Ada' },
        sentAt: new Date(1700000000 * 1000),
        replyToPlatformMessageId: 'wamid.ours',
        content: { type: 'TEXT', text: 'Hello' },
      });
    });

    for (const [type, mime, extra] of [
      ['image', 'image/jpeg', { caption: 'look' }],
      ['audio', 'audio/ogg', {}],
      ['video', 'video/mp4', { caption: 'clip' }],
      ['document', 'application/pdf', { filename: 'invoice.pdf', caption: 'bill' }],
    ] as const) {
      it(`reads ${type} as media by id, with its caption and file name`, () => {
        const media = fake.userMedia(mime, extra);
        const [event] = inbound(type, media);
        expect(event).to.deep.include({
          content: {
            type: 'MEDIA',
            media: [{ ref: media.id, mimeType: mime, fileName: (extra as { filename?: string }).filename }],
            ...('caption' in extra ? { caption: extra.caption } : {}),
          },
        });
      });
    }

    it('reads a location, contact cards, button and list replies and template buttons', () => {
      expect(
        inbound('location', { latitude: 52.5, longitude: 13.4, name: 'Office', address: 'Street 1' })[0],
      ).to.deep.include({
        content: { type: 'LOCATION', latitude: 52.5, longitude: 13.4, name: 'Office', address: 'Street 1' },
      });
      const cards = inbound(
        'contacts',
        [
          {
            name: { formatted_name: 'Bo Lin', first_name: 'Bo' },
            phones: [{ phone: '+1 555 0100', wa_id: '15550100' }],
            emails: [{ email: 'bo@example.com' }],
          },
          { name: { first_name: 'Cy', last_name: 'Ng' }, phones: [{ wa_id: '15550101' }] },
        ],
        { id: 'wamid.C' },
      );
      expect(
        cards.map((c) => [c.kind === 'message' && c.platformMessageId, c.kind === 'message' && c.content]),
      ).to.deep.equal([
        ['wamid.C', { type: 'CONTACT_CARD', name: 'Bo Lin', phones: ['+1 555 0100'], emails: ['bo@example.com'] }],
        ['wamid.C#1', { type: 'CONTACT_CARD', name: 'Cy Ng', phones: ['15550101'], emails: [] }],
      ]);
      expect(
        inbound('interactive', { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes' } })[0],
      ).to.deep.include({
        content: { type: 'BUTTON_REPLY', text: 'Yes', payload: 'yes' },
      });
      expect(
        inbound('interactive', { type: 'list_reply', list_reply: { id: 'r4', title: 'Four', description: 'd' } })[0],
      ).to.deep.include({
        content: { type: 'BUTTON_REPLY', text: 'Four', payload: 'r4' },
      });
      expect(inbound('button', { text: 'Stop promotions', payload: 'STOP' })[0]).to.deep.include({
        content: { type: 'BUTTON_REPLY', text: 'Stop promotions', payload: 'STOP' },
      });
      expect(inbound('unsupported', {})[0]).to.deep.include({
        content: { type: 'UNSUPPORTED', description: 'a unsupported message' },
      });
    });

    it('reads statuses, a failed one with the platform’s code and details', () => {
      const events = parse(
        fake.messagesWebhook(account, {
          statuses: [
            fake.status('wamid.1', 'read', user),
            fake.status('wamid.1', 'delivered', user),
            fake.status('wamid.2', 'failed', user, {
              code: 131047,
              title: 'Re-engagement message',
              details: 'More than 24 hours have passed',
            }),
          ],
        }),
      );
      expect(events.map((e) => e.kind === 'status' && [e.platformMessageId, e.status, e.failure])).to.deep.equal([
        ['wamid.1', 'READ', undefined],
        ['wamid.1', 'DELIVERED', undefined],
        ['wamid.2', 'FAILED', { code: '131047', message: 'More than 24 hours have passed' }],
      ]);
    });

    it('reads template status updates, and ignores another number of the same account', () => {
      expect(
        parse(
          fake.templateStatusWebhook(
            account,
            { id: '778', name: 'order_ready', language: 'en_US' },
            'REJECTED',
            'INVALID_FORMAT',
          ),
        ),
      ).to.deep.equal([
        {
          kind: 'template_status',
          templateId: '778',
          name: 'order_ready',
          language: 'en_US',
          status: 'REJECTED',
          reason: 'INVALID_FORMAT',
        },
      ]);
      const other = fake.account({ businessAccountId: account.businessAccountId });
      expect(
        parse(fake.messagesWebhook(other, { messages: [fake.inboundMessage(user, 'text', { body: 'x' })] })),
      ).to.deep.equal([]);
    });

    it('throws on a body that is not a WhatsApp business account webhook', () => {
      expect(() => adapter.parse(channel, Buffer.from('{"object":"page","entry":[]}'))).to.throw();
      expect(() => adapter.parse(channel, Buffer.from('not json'))).to.throw();
    });
  });

  describe('fetchMedia', () => {
    it('resolves the media id to its URL and downloads it with the token', async () => {
      const media = fake.userMedia('image/png');
      const fetched = await adapter.fetchMedia(channel, { ref: String(media.id), mimeType: 'image/png' });
      expect(fetched.bytes.toString()).to.equal(fake.mediaBytes(String(media.id)));
      expect(fetched.mimeType).to.equal('image/png');
      const download = fake.received('GET', /^\/media-download\//).pop()!;
      expect(download.headers.authorization).to.equal(`Bearer ${account.accessToken}`);
    });
  });

  describe('send', () => {
    const send = (content: OutboundContent, replyTo?: string) =>
      adapter.send(channel, { messageId: 'msg-1', recipient: user, content, replyToPlatformMessageId: replyTo });
    const lastBodies = (n: number) => fake.sent.slice(-n).map((m) => m.body);
    const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: user };

    it('sends text with a reply context and answers the wamid', async () => {
      const result = await send({ type: 'TEXT', text: 'Hi there' }, 'wamid.in');
      expect(result).to.deep.equal({ ok: true, platformMessageIds: [fake.sent.at(-1)!.id] });
      expect(lastBodies(1)[0]).to.deep.equal({
        ...envelope,
        type: 'text',
        text: { body: 'Hi there', preview_url: false },
        context: { message_id: 'wamid.in' },
      });
    });

    it('sends each attachment as its own message by link, the caption on the first, a file name for documents', async () => {
      const result = await send({
        type: 'MEDIA',
        caption: 'Your files',
        media: [
          { url: 'https://media.example/a.jpg', mimeType: 'image/jpeg', fileName: 'a.jpg' },
          { url: 'https://media.example/b.pdf', mimeType: 'application/pdf', fileName: 'b.pdf' },
          { url: 'https://media.example/c.ogg', mimeType: 'audio/ogg', fileName: 'c.ogg' },
          { url: 'https://media.example/d.mp4', mimeType: 'video/mp4', fileName: 'd.mp4' },
        ],
      });
      expect(result.ok && result.platformMessageIds).to.have.length(4);
      expect(lastBodies(4)).to.deep.equal([
        { ...envelope, type: 'image', image: { link: 'https://media.example/a.jpg', caption: 'Your files' } },
        { ...envelope, type: 'document', document: { link: 'https://media.example/b.pdf', filename: 'b.pdf' } },
        { ...envelope, type: 'audio', audio: { link: 'https://media.example/c.ogg' } },
        { ...envelope, type: 'video', video: { link: 'https://media.example/d.mp4' } },
      ]);
    });

    it('sends a location and a contact card', async () => {
      await send({ type: 'LOCATION', latitude: 1.5, longitude: 2.5, name: 'HQ', address: 'Road 2' });
      await send({ type: 'CONTACT_CARD', name: 'Bo Lin', phones: ['+15550100'], emails: ['bo@example.com'] });
      expect(lastBodies(2)).to.deep.equal([
        { ...envelope, type: 'location', location: { latitude: 1.5, longitude: 2.5, name: 'HQ', address: 'Road 2' } },
        {
          ...envelope,
          type: 'contacts',
          contacts: [
            {
              name: { formatted_name: 'Bo Lin', first_name: 'Bo', last_name: 'Lin' },
              phones: [{ phone: '+15550100' }],
              emails: [{ email: 'bo@example.com' }],
            },
          ],
        },
      ]);
    });

    it('sends up to 3 buttons as reply buttons and more as a list', async () => {
      const three = [1, 2, 3].map((n) => ({ id: `b${n}`, title: `Option ${n}` }));
      await send({ type: 'BUTTONS', text: 'Pick', buttons: three });
      await send({
        type: 'BUTTONS',
        text: 'Pick',
        buttons: [...three, { id: 'b4', title: 'An option title longer than twenty-four' }],
      });
      const [buttons, list] = lastBodies(2);
      expect(buttons!.interactive).to.deep.equal({
        type: 'button',
        body: { text: 'Pick' },
        action: { buttons: three.map((b) => ({ type: 'reply', reply: b })) },
      });
      expect(list!.interactive).to.deep.equal({
        type: 'list',
        body: { text: 'Pick' },
        action: { button: 'Choose', sections: [{ rows: [...three, { id: 'b4', title: 'An option title longer t' }] }] },
      });
    });

    it('refuses more than 10 choices and an over-long text without calling the platform', async () => {
      const before = fake.sent.length;
      const many = Array.from({ length: 11 }, (_, n) => ({ id: `${n}`, title: `${n}` }));
      expect(await send({ type: 'BUTTONS', text: 'Pick', buttons: many })).to.deep.include({ ok: false });
      expect(await send({ type: 'TEXT', text: 'x'.repeat(4097) })).to.deep.include({ ok: false });
      expect(fake.sent.length).to.equal(before);
    });

    it('sends an approved template by name and language with its parameters', async () => {
      account.templates.push({
        id: '901',
        name: 'order_ready',
        language: 'en_US',
        category: 'UTILITY',
        status: 'APPROVED',
        components: [],
      });
      const result = await send({
        type: 'TEMPLATE',
        name: 'order_ready',
        language: 'en_US',
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ada' },
              { type: 'text', text: '#42' },
            ],
          },
          { type: 'button', subType: 'quick_reply', index: 0, parameters: [{ type: 'text', text: 'x' }] },
        ],
      });
      expect(result.ok).to.equal(true);
      expect(lastBodies(1)[0]).to.deep.equal({
        ...envelope,
        type: 'template',
        template: {
          name: 'order_ready',
          language: { policy: 'deterministic', code: 'en_US' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Ada' },
                { type: 'text', text: '#42' },
              ],
            },
            { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'text', text: 'x' }] },
          ],
        },
      });
    });
  });

  describe('error classification (platforms.md 1.2)', () => {
    const table: [string, { status: number; body: unknown }, Record<string, unknown>][] = [
      ['throughput 130429', graph(400, 130429), { transient: true, code: '130429' }],
      ['pair rate 131056', graph(400, 131056), { transient: true, code: '131056' }],
      ['upgrade 131057', graph(400, 131057), { transient: true }],
      ['app rate limit 4', graph(400, 4), { transient: true }],
      ['WABA rate limit 80007', graph(400, 80007), { transient: true }],
      ['unknown 1', graph(500, 1), { transient: true }],
      ['service 2', graph(503, 2), { transient: true }],
      ['HTTP 429 without a code', { status: 429, body: 'slow down' }, { transient: true, code: 'http_429' }],
      ['HTTP 502 without a code', { status: 502, body: '<html>' }, { transient: true, code: 'http_502' }],
      ['window 131047', graph(400, 131047), { transient: false, windowClosed: true, code: '131047' }],
      ['undeliverable 131026', graph(400, 131026), { transient: false, code: '131026' }],
      ['ecosystem 131049', graph(400, 131049), { transient: false }],
      ['spam 131048', graph(400, 131048), { transient: false }],
      ['locked 131031', graph(400, 131031), { transient: false }],
      ['policy 368', graph(400, 368), { transient: false }],
      ['token 190', graph(401, 190), { transient: false, reauthorize: true }],
      ['permission 10', graph(403, 10), { transient: false }],
      ['permission 200', graph(403, 200), { transient: false }],
      ['parameter 100', graph(400, 100), { transient: false }],
      ['template parameter 132000', graph(400, 132000), { transient: false }],
    ];
    for (const [name, answer, expected] of table) {
      it(`classifies ${name}`, async () => {
        fake.failNext((r) => r.method === 'POST' && r.path.endsWith('/messages'), answer);
        const result = await adapter.send(channel, {
          messageId: 'm',
          recipient: user,
          content: { type: 'TEXT', text: 'x' },
        });
        expect(result.ok).to.equal(false);
        expect(!result.ok && result.error).to.deep.include(expected);
      });
    }

    it('classifies a timeout as transient', async () => {
      const slow = new ChatAppAAdapter({ baseUrl: fake.url, timeoutMs: 100 });
      fake.failNext((r) => r.path.endsWith('/messages'), { status: 200, body: {}, delayMs: 400 });
      const result = await slow.send(channel, {
        messageId: 'm',
        recipient: user,
        content: { type: 'TEXT', text: 'x' },
      });
      expect(!result.ok && result.error).to.deep.include({ transient: true, code: 'timeout' });
    });

    it('classifies an unreachable platform as transient', async () => {
      const down = new ChatAppAAdapter({ baseUrl: 'http://127.0.0.1:9', timeoutMs: 1000 });
      const result = await down.send(channel, {
        messageId: 'm',
        recipient: user,
        content: { type: 'TEXT', text: 'x' },
      });
      expect(!result.ok && result.error).to.deep.include({ transient: true, code: 'network' });
    });
  });
});

function graph(status: number, code: number) {
  return {
    status,
    body: {
      error: {
        message: `error ${code}`,
        type: 'OAuthException',
        code,
        error_data: { messaging_product: 'whatsapp', details: `details of ${code}` },
        fbtrace_id: 'A',
      },
    },
  };
}

describe('ChatAppA hosted connect (Embedded Signup) against the fake', function () {
  const fake = new FakeChatAppA();
  let adapter: ChatAppAAdapter;
  before(async () => {
    await fake.start();
    adapter = new ChatAppAAdapter({ baseUrl: fake.url, timeoutMs: 2000 });
  });
  after(() => fake.stop());

  const redirectUri = 'https://inbox.example/channels/connect/callback';
  const visit = async (url: string) => {
    const response = await fetch(url, { redirect: 'manual' });
    return new URL(response.headers.get('location') ?? '');
  };

  it('builds the dialog URL, and the code exchanged yields every number of the granted business account', async () => {
    const account = fake.account();
    const second = fake.account({ businessAccountId: account.businessAccountId });
    fake.consentAs(account);
    const url = chatAppAConnectUrl({ ...fake.app, redirectUri, state: 'signed-state', dialogUrl: fake.dialogUrl });
    const dialog = new URL(url);
    expect(Object.fromEntries(dialog.searchParams)).to.deep.equal({
      client_id: fake.app.appId,
      redirect_uri: redirectUri,
      state: 'signed-state',
      response_type: 'code',
      scope: 'whatsapp_business_management,whatsapp_business_messaging',
    });
    const back = await visit(url);
    expect(back.searchParams.get('state')).to.equal('signed-state');
    const numbers = await chatAppANumbersFromCode(adapter, fake.app, {
      code: back.searchParams.get('code')!,
      redirectUri,
    });
    expect(
      numbers.map((n) => [n.credentials.phoneNumberId, n.credentials.businessAccountId, n.displayPhoneNumber]),
    ).to.deep.equal([
      [account.phoneNumberId, account.businessAccountId, account.displayPhoneNumber],
      [second.phoneNumberId, account.businessAccountId, second.displayPhoneNumber],
    ]);
    expect(numbers[0]!.credentials.appSecret).to.equal(fake.app.appSecret);
    // The exchanged token acts for the business: connect validates it like own credentials.
    expect((await adapter.validate(numbers[0]!.credentials)).externalId).to.equal(account.phoneNumberId);
  });

  it('uses the Embedded Signup configuration instead of scopes when given', () => {
    const url = new URL(chatAppAConnectUrl({ ...fake.app, redirectUri, state: 's', configId: '1234' }));
    expect(url.origin + url.pathname).to.equal('https://www.facebook.com/v23.0/dialog/oauth');
    expect([url.searchParams.get('config_id'), url.searchParams.get('scope')]).to.deep.equal(['1234', null]);
  });

  it('refuses a code used twice, and one exchanged with another redirect URI', async () => {
    fake.consentAs(fake.account());
    const code = (
      await visit(chatAppAConnectUrl({ ...fake.app, redirectUri, state: 's', dialogUrl: fake.dialogUrl }))
    ).searchParams.get('code')!;
    await chatAppANumbersFromCode(adapter, fake.app, { code, redirectUri });
    try {
      await chatAppANumbersFromCode(adapter, fake.app, { code, redirectUri });
      expect.fail('a code was exchanged twice');
    } catch (error) {
      expect((error as PlatformCallError).error).to.include({ code: '100', transient: false });
    }
    const other = (
      await visit(chatAppAConnectUrl({ ...fake.app, redirectUri, state: 's', dialogUrl: fake.dialogUrl }))
    ).searchParams.get('code')!;
    try {
      await chatAppANumbersFromCode(adapter, fake.app, { code: other, redirectUri: `${redirectUri}x` });
      expect.fail('exchanged with another redirect URI');
    } catch (error) {
      expect(error).to.be.instanceOf(PlatformCallError);
    }
  });
});
