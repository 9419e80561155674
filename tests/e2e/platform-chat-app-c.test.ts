import { expect } from 'chai';
import { ChannelType } from '@svc/proto/channels/v1';
import type { ConnectedChannel, OutboundMessage } from '@svc/channels/dist/src/platforms/adapter';
import { ChatAppCAdapter } from '@svc/channels/dist/src/platforms/chat-app-c';
import { recordingEndpoint, type RecordingEndpoint } from '../fakes/recording-endpoint';
import { FakeChatAppC, type FakeViberAccount, type ViberUserShape } from '../fakes/chat-app-c';

describe('ChatAppC adapter (Viber REST bot API shape) against the fake platform', function () {
  const fake = new FakeChatAppC();
  let adapter: ChatAppCAdapter;
  let account: FakeViberAccount;
  let channel: ConnectedChannel;
  let user: ViberUserShape;
  let inbound: RecordingEndpoint;

  before(async () => {
    await fake.start();
    inbound = await recordingEndpoint();
    adapter = new ChatAppCAdapter({ baseUrl: fake.apiUrl, timeoutMs: 2000 });
  });
  after(async () => {
    await fake.stop();
    await inbound.close();
  });
  beforeEach(async () => {
    inbound.status = 200;
    account = fake.addAccount();
    user = fake.user();
    fake.subscribe(account, user);
    channel = {
      channelId: 'ch-c',
      orgId: 'org-1',
      type: ChannelType.CHAT_APP_C,
      account: await adapter.validate({ authToken: account.authToken }),
      credentials: { authToken: account.authToken },
      webhookSecret: '',
    };
    await adapter.registerWebhook(channel, inbound.url);
  });

  /** Delivers a callback as Viber would and hands back what our route received. */
  const received = async (body: string, signature?: string | null) => {
    const before = inbound.requests.length;
    const answer = await fake.deliverCallback(account, body, signature === undefined ? {} : { signature });
    expect(answer.status).to.equal(200);
    return inbound.requests[before]!;
  };
  const parsed = async (body: string) => adapter.parse(channel, (await received(body)).rawBody);
  const send = (content: OutboundMessage['content'], recipient = user.id) =>
    adapter.send(channel, { messageId: 'msg-1', recipient, content });
  const sentBodies = () => fake.calls(account, 'send_message');

  describe('credentials', () => {
    it('validates the auth token with get_account_info and keeps the account id, name, uri and icon', () => {
      expect(channel.account).to.deep.equal({
        externalId: account.id,
        displayName: 'Acme Support',
        details: { uri: account.uri, icon: account.icon },
      });
      expect(fake.calls(account, 'get_account_info')).to.deep.equal([{}]);
    });

    it('refuses an unknown token as needing reauthorisation', async () => {
      const error = await adapter.validate({ authToken: 'aaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb' }).catch((e: unknown) => e);
      expect(error).to.have.nested.property('error.code', '2');
      expect(error).to.have.nested.property('error.reauthorize', true);
    });

    it('refuses a value that is not a token before calling the platform, naming the field', () => {
      const parsedCredentials = adapter.credentialsSchema.safeParse({ authToken: 'no spaces allowed' });
      expect(parsedCredentials.error?.issues[0]?.path).to.deep.equal(['authToken']);
    });
  });

  describe('webhook', () => {
    it('registers with set_webhook and the events it reads; Viber checks the URL with a signed event: webhook', async () => {
      expect(fake.calls(account, 'set_webhook').at(-1)).to.deep.equal({
        url: inbound.url,
        event_types: ['delivered', 'seen', 'failed', 'subscribed', 'unsubscribed', 'conversation_started'],
        send_name: true,
        send_photo: false,
      });
      expect(fake.webhookChecks.at(-1)).to.deep.equal({ url: inbound.url, status: 200 });
      const check = inbound.requests.at(-1)!;
      expect(JSON.parse(check.rawBody.toString())).to.have.property('event', 'webhook');
      expect(adapter.verify(channel, check)).to.deep.equal({ ok: true });
      expect(adapter.parse(channel, check.rawBody)).to.deep.equal([]);
    });

    it('fails to register when our route does not answer the check with 200', async () => {
      inbound.status = 404;
      const error = await adapter.registerWebhook(channel, inbound.url).catch((e: unknown) => e);
      expect(error).to.have.nested.property('error.code', '1');
      expect(error).to.have.nested.property('error.transient', false);
    });

    it('unregisters with set_webhook and an empty url', async () => {
      await adapter.unregisterWebhook(channel);
      expect(fake.calls(account, 'set_webhook').at(-1)).to.deep.equal({ url: '' });
      expect(account.webhook).to.equal(undefined);
    });

    it('accepts the HMAC-SHA256 signature of the raw body and refuses a wrong, missing or other-key one', async () => {
      const body = fake.textCallback(user, 'hello');
      expect(adapter.verify(channel, await received(body))).to.deep.equal({ ok: true });
      const wrong = await received(body, fake.sign(fake.addAccount(), body));
      expect(adapter.verify(channel, wrong)).to.deep.equal({
        ok: false,
        reason: 'x-viber-content-signature does not match the body',
      });
      expect(adapter.verify(channel, await received(body, null))).to.deep.include({ ok: false });
      const tampered = await received(body);
      expect(
        adapter.verify(channel, { ...tampered, rawBody: Buffer.from(body.replace('hello', 'hellO')) }),
      ).to.deep.include({ ok: false });
      expect(adapter.verify(channel, { ...tampered, method: 'GET' })).to.deep.include({ ok: false });
    });
  });

  describe('parse', () => {
    it('reads a text message with its sender, 64-bit message token (exactly) and time', async () => {
      const token = fake.newToken();
      const body = fake.textCallback(user, 'Hello there', token);
      const [event] = await parsed(body);
      expect(Number(token)).to.be.greaterThan(Number.MAX_SAFE_INTEGER);
      expect(event).to.deep.equal({
        kind: 'message',
        platformMessageId: token,
        from: { platformUserId: user.id, name: 'Grace Hopper' },
        sentAt: new Date((JSON.parse(body) as { timestamp: number }).timestamp),
        content: { type: 'TEXT', text: 'Hello there' },
      });
    });

    const media: [string, Record<string, unknown>, Record<string, unknown>][] = [
      [
        'picture',
        { type: 'picture', text: 'receipt', media: 'https://dl-media.viber.com/p.jpg', file_name: 'p.jpg' },
        {
          type: 'MEDIA',
          media: [{ ref: 'https://dl-media.viber.com/p.jpg', mimeType: 'image/jpeg', fileName: 'p.jpg' }],
          caption: 'receipt',
        },
      ],
      [
        'video',
        { type: 'video', media: 'https://dl-media.viber.com/v.mp4', size: 10, duration: 3 },
        { type: 'MEDIA', media: [{ ref: 'https://dl-media.viber.com/v.mp4', mimeType: 'video/mp4' }] },
      ],
      [
        'file',
        { type: 'file', media: 'https://dl-media.viber.com/f', file_name: 'a.pdf', size: 10 },
        { type: 'MEDIA', media: [{ ref: 'https://dl-media.viber.com/f', fileName: 'a.pdf' }] },
      ],
      [
        'location',
        { type: 'location', location: { lat: 51.5, lon: -0.12 } },
        { type: 'LOCATION', latitude: 51.5, longitude: -0.12 },
      ],
      [
        'contact',
        { type: 'contact', contact: { name: 'Alan Turing', phone_number: '+447700900123' } },
        { type: 'CONTACT_CARD', name: 'Alan Turing', phones: ['+447700900123'], emails: [] },
      ],
      ['sticker', { type: 'sticker', sticker_id: 46105 }, { type: 'UNSUPPORTED', description: 'a sticker' }],
      ['url', { type: 'url', media: 'https://example.com/x' }, { type: 'TEXT', text: 'https://example.com/x' }],
    ];
    for (const [kind, message, content] of media) {
      it(`reads a ${kind} message`, async () => {
        const [event] = await parsed(fake.messageCallback(user, message));
        expect(event).to.have.deep.property('content', content);
      });
    }

    it('reads a tap on a keyboard button we sent as a BUTTON_REPLY with the button id', async () => {
      await send({
        type: 'BUTTONS',
        text: 'Pick',
        buttons: [
          { id: 'yes-id', title: 'Yes' },
          { id: 'no-id', title: 'No' },
        ],
      });
      const tracking = sentBodies().at(-1)!['tracking_data'] as string;
      const [event] = await parsed(fake.messageCallback(user, { type: 'text', text: 'Yes', tracking_data: tracking }));
      expect(event).to.have.deep.property('content', { type: 'BUTTON_REPLY', text: 'Yes', payload: 'yes-id' });
      const [typed] = await parsed(
        fake.messageCallback(user, { type: 'text', text: 'Maybe', tracking_data: tracking }),
      );
      expect(typed).to.have.deep.property('content', { type: 'TEXT', text: 'Maybe' });
    });

    it('reads delivered, seen and failed about a sent message, in whatever order they come', async () => {
      const sent = await send({ type: 'TEXT', text: 'hi' });
      const token = (sent as { platformMessageIds: string[] }).platformMessageIds[0]!;
      expect(token).to.equal(fake.sentTokens.at(-1));
      const before = inbound.requests.length;
      expect(await fake.deliverStatuses(account, token, user.id, ['seen', 'delivered', 'failed'])).to.deep.equal([
        200, 200, 200,
      ]);
      const events = inbound.requests.slice(before).flatMap((r) => adapter.parse(channel, r.rawBody));
      expect(events.map((e) => e.kind === 'status' && [e.platformMessageId, e.status])).to.deep.equal([
        [token, 'READ'],
        [token, 'DELIVERED'],
        [token, 'FAILED'],
      ]);
      expect(events[2]).to.have.deep.property('failure', {
        code: 'failed',
        message: 'the client could not show the message',
      });
    });

    it('produces nothing for subscribed, unsubscribed, conversation_started and the webhook check', async () => {
      expect(await parsed(fake.subscribedCallback(user))).to.deep.equal([]);
      expect(await parsed(fake.unsubscribedCallback(user.id))).to.deep.equal([]);
      expect(await parsed(fake.conversationStartedCallback(user))).to.deep.equal([]);
      expect(await parsed(fake.webhookCallback())).to.deep.equal([]);
    });

    it('throws on a body that is not a callback', () => {
      expect(() => adapter.parse(channel, Buffer.from('{"x":1}'))).to.throw(/event/);
      expect(() => adapter.parse(channel, Buffer.from('{"event":"delivered","timestamp":1}'))).to.throw(
        /message_token/,
      );
    });
  });

  describe('fetchMedia', () => {
    it('downloads the media URL the callback named', async () => {
      const media = await adapter.fetchMedia(channel, { ref: fake.mediaUrl('p.jpg'), fileName: 'p.jpg' });
      expect(media).to.deep.equal({
        bytes: Buffer.from('viber-media:p.jpg'),
        mimeType: 'image/jpeg',
        fileName: 'p.jpg',
      });
    });
  });

  describe('send', () => {
    const sender = () => ({ name: 'Acme Support', avatar: account.icon });

    it('sends text with send_message as the account, and answers the exact message token', async () => {
      const result = await send({ type: 'TEXT', text: 'Hi!' });
      expect(sentBodies()).to.deep.equal([{ receiver: user.id, sender: sender(), type: 'text', text: 'Hi!' }]);
      expect(result).to.deep.equal({ ok: true, platformMessageIds: [fake.sentTokens.at(-1)] });
    });

    it('cuts the sender name to 28 characters', async () => {
      const long = {
        ...channel,
        account: { ...channel.account, displayName: 'A very long public account name indeed' },
      };
      await adapter.send(long, { messageId: 'm', recipient: user.id, content: { type: 'TEXT', text: 'x' } });
      expect(sentBodies()[0]!['sender']).to.deep.include({ name: 'A very long public account n' });
    });

    it('sends pictures as picture with the caption, videos as video and other files as file with their size', async () => {
      const result = await send({
        type: 'MEDIA',
        caption: 'Here',
        media: [
          { url: fake.mediaUrl('a.jpg'), mimeType: 'image/jpeg', fileName: 'a.jpg' },
          { url: fake.mediaUrl('b.mp4'), mimeType: 'video/mp4', fileName: 'b.mp4' },
          { url: fake.mediaUrl('c.pdf'), mimeType: 'application/pdf', fileName: 'c.pdf' },
        ],
      });
      expect(sentBodies().map(({ receiver: _r, sender: _s, ...rest }) => rest)).to.deep.equal([
        { type: 'picture', media: fake.mediaUrl('a.jpg'), text: 'Here' },
        { type: 'video', media: fake.mediaUrl('b.mp4'), size: Buffer.byteLength('viber-media:b.mp4') },
        {
          type: 'file',
          media: fake.mediaUrl('c.pdf'),
          size: Buffer.byteLength('viber-media:c.pdf'),
          file_name: 'c.pdf',
        },
      ]);
      expect(result).to.have.nested.property('platformMessageIds.length', 3);
    });

    it('names the parts taken before a failure, and resumes after them without posting them again', async () => {
      const content = {
        type: 'MEDIA' as const,
        media: ['a.jpg', 'b.jpg', 'c.jpg'].map((name) => ({
          url: fake.mediaUrl(name),
          mimeType: 'image/jpeg',
          fileName: name,
        })),
      };
      fake.failNext(
        (r) =>
          r.path === '/pa/send_message' && (r.json as { media?: string } | undefined)?.media === fake.mediaUrl('b.jpg'),
        { status: 503, body: 'busy' },
      );
      const failed = await send(content);
      expect(failed).to.deep.include({ ok: false, partsTaken: [fake.sentTokens.at(-1)] });
      const resumed = await adapter.send(channel, { messageId: 'msg-1', recipient: user.id, content, fromPart: 1 });
      expect(resumed).to.have.nested.property('platformMessageIds.length', 2);
      const media = sentBodies().map((body) => body['media']);
      expect(media).to.deep.equal(['a.jpg', 'b.jpg', 'b.jpg', 'c.jpg'].map((name) => fake.mediaUrl(name)));
    });

    it('sends a location and a contact', async () => {
      await send({ type: 'LOCATION', latitude: 1.5, longitude: 2.5 });
      await send({ type: 'CONTACT_CARD', name: 'Alan Turing', phones: ['+447700900123'], emails: [] });
      expect(sentBodies().map(({ receiver: _r, sender: _s, ...rest }) => rest)).to.deep.equal([
        { type: 'location', location: { lat: 1.5, lon: 2.5 } },
        { type: 'contact', contact: { name: 'Alan Turing', phone_number: '+447700900123' } },
      ]);
    });

    it('sends buttons as a keyboard of reply buttons', async () => {
      await send({ type: 'BUTTONS', text: 'Pick', buttons: [{ id: 'y', title: 'Yes' }] });
      expect(sentBodies()[0]).to.deep.include({
        type: 'text',
        text: 'Pick',
        tracking_data: JSON.stringify({ svcButtons: { Yes: 'y' } }),
        keyboard: {
          Type: 'keyboard',
          DefaultHeight: false,
          Buttons: [{ ActionType: 'reply', ActionBody: 'Yes', Text: 'Yes', Columns: 6, Rows: 1 }],
        },
      });
    });
  });

  describe('errors', () => {
    it('fails a message to a user who is not subscribed at once, with Viber status 6 explained', async () => {
      const result = await send({ type: 'TEXT', text: 'x' }, fake.user().id);
      expect(result).to.have.property('ok', false);
      expect(result).to.have.nested.property('error.code', '6');
      expect(result).to.have.nested.property('error.transient', false);
      expect((result as { error: { message: string } }).error.message).to.match(
        /not subscribed.*\(receiverNotSubscribed\)$/,
      );
    });

    it('retries tooManyRequests (12) after a wait, and an undocumented status (General error)', async () => {
      fake.failMethod('send_message', 12, 'Too many requests');
      expect(await send({ type: 'TEXT', text: 'x' })).to.deep.include({
        error: {
          transient: true,
          code: '12',
          message: 'Viber allows 100 messages to a user per hour without a reply (Too many requests)',
          retryAfterMs: 15 * 60_000,
        },
      });
      fake.failMethod('send_message', 99, 'General error');
      expect(await send({ type: 'TEXT', text: 'x' })).to.have.nested.property('error.transient', true);
    });

    it('retries a 5xx and a timeout', async () => {
      fake.failNext((r) => r.path === '/pa/send_message', { status: 503, body: 'busy' });
      expect(await send({ type: 'TEXT', text: 'x' })).to.deep.equal({
        ok: false,
        error: { transient: true, code: 'http_503', message: 'Viber answered HTTP 503' },
      });
      const slow = new ChatAppCAdapter({ baseUrl: fake.apiUrl, timeoutMs: 100 });
      fake.failNext((r) => r.path === '/pa/send_message', { status: 200, body: { status: 0 }, delayMs: 400 });
      expect(
        await slow.send(channel, { messageId: 'm', recipient: user.id, content: { type: 'TEXT', text: 'x' } }),
      ).to.have.nested.property('error.code', 'timeout');
    });

    it('marks account problems as needing reauthorisation and bad data as permanent', async () => {
      fake.failMethod('send_message', 7, 'publicAccountBlocked');
      expect(await send({ type: 'TEXT', text: 'x' })).to.have.nested.property('error.reauthorize', true);
      fake.failMethod('send_message', 3, 'badData');
      expect(await send({ type: 'TEXT', text: 'x' })).to.deep.equal({
        ok: false,
        error: { transient: false, code: '3', message: 'badData' },
      });
    });
  });
});
