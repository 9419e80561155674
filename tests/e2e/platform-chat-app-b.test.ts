import { expect } from 'chai';
import { ChannelType } from '@svc/proto/channels/v1';
import type { ConnectedChannel, OutboundMessage } from '@svc/channels/dist/src/platforms/adapter';
import { ChatAppBAdapter, newChatAppBSecretToken } from '@svc/channels/dist/src/platforms/chat-app-b';
import { recordingEndpoint, type RecordingEndpoint } from '../fakes/recording-endpoint';
import { FakeChatAppB, type FakeBot } from '../fakes/chat-app-b';

describe('ChatAppB adapter (Telegram Bot API shape) against the fake platform', function () {
  const fake = new FakeChatAppB();
  let adapter: ChatAppBAdapter;
  let bot: FakeBot;
  let channel: ConnectedChannel;
  let inbound: RecordingEndpoint;

  before(async () => {
    await fake.start();
    inbound = await recordingEndpoint();
    adapter = new ChatAppBAdapter({ baseUrl: fake.apiUrl, timeoutMs: 2000 });
  });
  after(async () => {
    await fake.stop();
    await inbound.close();
  });
  beforeEach(async () => {
    bot = fake.addBot();
    const account = await adapter.validate({ botToken: bot.token });
    channel = {
      channelId: 'ch-b',
      orgId: 'org-1',
      type: ChannelType.CHAT_APP_B,
      account,
      credentials: { botToken: bot.token },
      webhookSecret: newChatAppBSecretToken(),
    };
  });

  const received = async (update: Record<string, unknown>, secret?: string | null) => {
    const before = inbound.requests.length;
    const answer = await fake.deliverUpdate(bot, update, secret === undefined ? {} : { secretToken: secret });
    expect(answer.status).to.equal(200);
    return inbound.requests[before]!;
  };
  const send = (content: OutboundMessage['content'], recipient = '555', extra: Partial<OutboundMessage> = {}) =>
    adapter.send(channel, { messageId: 'msg-1', recipient, content, ...extra });

  describe('credentials', () => {
    it('validates a bot token with getMe and names the bot by its @username', async () => {
      const account = await adapter.validate({ botToken: bot.token });
      expect(account).to.deep.equal({
        externalId: String(bot.id),
        displayName: `@${bot.username}`,
        details: { username: bot.username, firstName: 'Support' },
      });
      expect(fake.calls(bot, 'getMe')).to.have.length.greaterThan(0);
    });

    it('refuses an unknown token with a permanent error that asks for reauthorisation', async () => {
      const error = await adapter.validate({ botToken: '123:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).catch((e: unknown) => e);
      expect(error).to.have.nested.property('error.code', '401');
      expect(error).to.have.nested.property('error.transient', false);
      expect(error).to.have.nested.property('error.reauthorize', true);
    });

    it('refuses a value that is not a bot token before calling the platform, naming the field', () => {
      const parsed = adapter.credentialsSchema.safeParse({ botToken: 'not a token' });
      expect(parsed.success).to.equal(false);
      expect(parsed.error?.issues[0]?.path).to.deep.equal(['botToken']);
      expect(adapter.credentialsSchema.safeParse({ botToken: bot.token, extra: 'x' }).success).to.equal(false);
    });
  });

  describe('webhook', () => {
    it('registers the webhook with the URL, a secret_token and the update types it reads', async () => {
      await adapter.registerWebhook(channel, inbound.url);
      const [call] = fake.calls(bot, 'setWebhook');
      expect(call).to.deep.equal({
        url: inbound.url,
        secret_token: channel.webhookSecret,
        allowed_updates: ['message', 'edited_message', 'callback_query'],
      });
      expect(channel.webhookSecret).to.match(/^[A-Za-z0-9_-]{1,256}$/);
      expect(bot.webhook?.secretToken).to.equal(channel.webhookSecret);
    });

    it('unregisters with deleteWebhook', async () => {
      await adapter.registerWebhook(channel, inbound.url);
      await adapter.unregisterWebhook(channel);
      expect(fake.calls(bot, 'deleteWebhook')).to.deep.equal([{ drop_pending_updates: false }]);
      expect(bot.webhook).to.equal(undefined);
    });

    it('accepts an update presenting the secret token and refuses a wrong, missing or GET one', async () => {
      await adapter.registerWebhook(channel, inbound.url);
      const update = fake.textUpdate(bot, fake.user(), 'hello');
      expect(adapter.verify(channel, await received(update))).to.deep.equal({ ok: true });
      const wrong = adapter.verify(channel, await received(update, channel.webhookSecret.slice(1) + 'x'));
      expect(wrong).to.deep.equal({ ok: false, reason: 'x-telegram-bot-api-secret-token does not match' });
      expect(adapter.verify(channel, await received(update, null))).to.deep.include({ ok: false });
      const request = await received(update);
      expect(adapter.verify(channel, { ...request, method: 'GET' })).to.deep.include({ ok: false });
      expect(adapter.verify({ ...channel, webhookSecret: '' }, request)).to.deep.include({ ok: false });
    });
  });

  describe('parse', () => {
    const parseOne = async (update: Record<string, unknown>) => {
      await adapter.registerWebhook(channel, inbound.url);
      return adapter.parse(channel, (await received(update)).rawBody);
    };

    it('reads a text message with its sender, id (chat:message) and time', async () => {
      const from = fake.user({ username: 'grace' });
      const update = fake.textUpdate(bot, from, 'Hello there');
      const message = update['message'] as { message_id: number; date: number };
      const [event] = await parseOne(update);
      expect(event).to.deep.equal({
        kind: 'message',
        platformMessageId: `${from.id}:${message.message_id}`,
        from: { platformUserId: String(from.id), name: 'Ada Lovelace', username: 'grace' },
        sentAt: new Date(message.date * 1000),
        content: { type: 'TEXT', text: 'Hello there' },
      });
    });

    it('reads a photo as its largest size, with the caption', async () => {
      const update = fake.messageUpdate(bot, fake.user(), {
        photo: [
          { file_id: 'small', file_unique_id: 's', width: 90, height: 90 },
          { file_id: 'large', file_unique_id: 'l', width: 1280, height: 1280 },
        ],
        caption: 'my receipt',
      });
      const [event] = await parseOne(update);
      expect(event).to.have.deep.property('content', {
        type: 'MEDIA',
        media: [{ ref: 'large', mimeType: 'image/jpeg' }],
        caption: 'my receipt',
      });
    });

    const files: [string, Record<string, unknown>, Record<string, unknown>][] = [
      [
        'document',
        { document: { file_id: 'doc', file_unique_id: 'd', file_name: 'a.pdf', mime_type: 'application/pdf' } },
        { ref: 'doc', mimeType: 'application/pdf', fileName: 'a.pdf' },
      ],
      ['voice', { voice: { file_id: 'voi', file_unique_id: 'v', duration: 3 } }, { ref: 'voi', mimeType: 'audio/ogg' }],
      [
        'video',
        { video: { file_id: 'vid', file_unique_id: 'v', mime_type: 'video/mp4', file_name: 'c.mp4' } },
        { ref: 'vid', mimeType: 'video/mp4', fileName: 'c.mp4' },
      ],
      [
        'audio',
        { audio: { file_id: 'aud', file_unique_id: 'a', mime_type: 'audio/mpeg', file_name: 's.mp3' } },
        { ref: 'aud', mimeType: 'audio/mpeg', fileName: 's.mp3' },
      ],
    ];
    for (const [kind, fields, media] of files) {
      it(`reads a ${kind} as media by its file_id`, async () => {
        const [event] = await parseOne(fake.messageUpdate(bot, fake.user(), fields));
        expect(event).to.have.deep.property('content', { type: 'MEDIA', media: [media] });
      });
    }

    it('reads a location and a venue', async () => {
      const [location] = await parseOne(
        fake.messageUpdate(bot, fake.user(), { location: { latitude: 51.5, longitude: -0.12 } }),
      );
      expect(location).to.have.deep.property('content', { type: 'LOCATION', latitude: 51.5, longitude: -0.12 });
      const [venue] = await parseOne(
        fake.messageUpdate(bot, fake.user(), {
          location: { latitude: 1, longitude: 2 },
          venue: { location: { latitude: 1, longitude: 2 }, title: 'Office', address: '1 Main St' },
        }),
      );
      expect(venue).to.have.deep.property('content', {
        type: 'LOCATION',
        latitude: 1,
        longitude: 2,
        name: 'Office',
        address: '1 Main St',
      });
    });

    it('reads a shared contact as a contact card', async () => {
      const [event] = await parseOne(
        fake.messageUpdate(bot, fake.user(), {
          contact: { phone_number: '+447700900123', first_name: 'Alan', last_name: 'Turing' },
        }),
      );
      expect(event).to.have.deep.property('content', {
        type: 'CONTACT_CARD',
        name: 'Alan Turing',
        phones: ['+447700900123'],
        emails: [],
      });
    });

    it('reads a tap on an inline button as a BUTTON_REPLY with its title and callback data', async () => {
      const from = fake.user();
      const reply_markup = {
        inline_keyboard: [[{ text: 'Yes please', callback_data: 'yes' }], [{ text: 'No', callback_data: 'no' }]],
      };
      const update = fake.callbackUpdate(bot, from, { message_id: 77, text: 'Shall we?', reply_markup }, 'yes');
      const [event] = await parseOne(update);
      expect(event).to.deep.include({ kind: 'message', replyToPlatformMessageId: `${from.id}:77` });
      expect(event).to.have.deep.property('content', { type: 'BUTTON_REPLY', text: 'Yes please', payload: 'yes' });
      expect((event as { platformMessageId: string }).platformMessageId).to.match(/^callback:/);
    });

    it('answers a tap in the webhook response with answerCallbackQuery; other updates and junk get no reply', () => {
      const from = fake.user();
      const reply_markup = { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] };
      const update = fake.callbackUpdate(bot, from, { message_id: 7, text: 'Sure?', reply_markup }, 'yes');
      const reply = adapter.webhookReply(channel, Buffer.from(JSON.stringify(update)));
      expect(reply).to.deep.equal({
        method: 'answerCallbackQuery',
        callback_query_id: (update['callback_query'] as { id: string }).id,
      });
      const text = Buffer.from(JSON.stringify(fake.textUpdate(bot, from, 'hi')));
      expect(adapter.webhookReply(channel, text)).to.equal(undefined);
      expect(adapter.webhookReply(channel, Buffer.from('not json'))).to.equal(undefined);
      expect(adapter.webhookReply(channel, Buffer.from('null'))).to.equal(undefined);
    });

    it('records an edit as a new message replying to the original, with its own id', async () => {
      const from = fake.user();
      const update = fake.messageUpdate(bot, from, { text: 'corrected' }, { edited: true, messageId: 42 });
      const [event] = await parseOne(update);
      const editDate = (update['edited_message'] as { edit_date: number }).edit_date;
      expect(event).to.deep.include({
        platformMessageId: `${from.id}:42:edit:${editDate}`,
        replyToPlatformMessageId: `${from.id}:42`,
        content: { type: 'TEXT', text: 'corrected' },
      });
    });

    it('carries the message a user replied to', async () => {
      const from = fake.user();
      const [event] = await parseOne(
        fake.messageUpdate(bot, from, {
          text: 'this one',
          reply_to_message: { message_id: 9, chat: { id: from.id, type: 'private' }, date: 1 },
        }),
      );
      expect(event).to.have.property('replyToPlatformMessageId', `${from.id}:9`);
    });

    it('records a sticker as UNSUPPORTED rather than dropping it', async () => {
      const [event] = await parseOne(
        fake.messageUpdate(bot, fake.user(), { sticker: { file_id: 's', file_unique_id: 's', emoji: '👍' } }),
      );
      expect(event).to.have.deep.property('content', { type: 'UNSUPPORTED', description: 'a sticker 👍' });
    });

    it('produces nothing for group messages, bots and update types it did not ask for', async () => {
      const group = fake.textUpdate(bot, fake.user(), 'hi all');
      (group['message'] as { chat: { type: string } }).chat.type = 'group';
      expect(await parseOne(group)).to.deep.equal([]);
      const fromBot = fake.textUpdate(bot, { ...fake.user(), is_bot: true } as never, 'beep');
      expect(await parseOne(fromBot)).to.deep.equal([]);
      expect(await parseOne({ update_id: 1, my_chat_member: {} })).to.deep.equal([]);
    });

    it('throws on a body that is not an Update', () => {
      expect(() => adapter.parse(channel, Buffer.from('{"hello":1}'))).to.throw(/update_id/);
      expect(() => adapter.parse(channel, Buffer.from('nope'))).to.throw();
    });
  });

  describe('fetchMedia', () => {
    it('resolves the file with getFile and downloads it from /file/bot<token>/<path>', async () => {
      const fileId = fake.addFile(bot, 'PDF-BYTES', 'application/pdf', 'invoice.pdf');
      const media = await adapter.fetchMedia(channel, { ref: fileId });
      expect(media).to.deep.equal({
        bytes: Buffer.from('PDF-BYTES'),
        mimeType: 'application/pdf',
        fileName: 'invoice.pdf',
      });
      expect(fake.calls(bot, 'getFile')).to.deep.equal([{ file_id: fileId }]);
      expect(fake.received('GET', /^\/file\/bot/)).to.have.length.greaterThan(0);
    });
  });

  describe('send', () => {
    it('sends text with sendMessage and answers chat:message_id', async () => {
      const result = await send({ type: 'TEXT', text: 'Hi!' });
      const [call] = fake.calls(bot, 'sendMessage');
      expect(call).to.deep.equal({ chat_id: '555', text: 'Hi!' });
      expect(result).to.deep.equal({ ok: true, platformMessageIds: [`555:${bot.nextMessageId - 1}`] });
    });

    it('quotes the message replied to with reply_parameters', async () => {
      await send({ type: 'TEXT', text: 'Re' }, '555', { replyToPlatformMessageId: '555:42' });
      expect(fake.calls(bot, 'sendMessage')[0]).to.deep.include({
        reply_parameters: { message_id: 42, allow_sending_without_reply: true },
      });
    });

    it('splits text longer than 4096 characters into messages in order', async () => {
      const text = 'a'.repeat(4096) + 'b'.repeat(10);
      const result = await send({ type: 'TEXT', text });
      expect(fake.calls(bot, 'sendMessage').map((c) => c['text'])).to.deep.equal(['a'.repeat(4096), 'b'.repeat(10)]);
      expect(result).to.have.nested.property('platformMessageIds.length', 2);
    });

    it('sends each media item by URL with the method of its type, the caption on the first', async () => {
      const result = await send({
        type: 'MEDIA',
        caption: 'Here you go',
        media: [
          { url: 'https://media.test/a.jpg', mimeType: 'image/jpeg', fileName: 'a.jpg' },
          { url: 'https://media.test/b.pdf', mimeType: 'application/pdf', fileName: 'b.pdf' },
          { url: 'https://media.test/c.mp4', mimeType: 'video/mp4', fileName: 'c.mp4' },
          { url: 'https://media.test/d.mp3', mimeType: 'audio/mpeg', fileName: 'd.mp3' },
        ],
      });
      expect(fake.calls(bot, 'sendPhoto')).to.deep.equal([
        { chat_id: '555', photo: 'https://media.test/a.jpg', caption: 'Here you go' },
      ]);
      expect(fake.calls(bot, 'sendDocument')).to.deep.equal([{ chat_id: '555', document: 'https://media.test/b.pdf' }]);
      expect(fake.calls(bot, 'sendVideo')).to.deep.equal([{ chat_id: '555', video: 'https://media.test/c.mp4' }]);
      expect(fake.calls(bot, 'sendAudio')).to.deep.equal([{ chat_id: '555', audio: 'https://media.test/d.mp3' }]);
      expect(result).to.have.nested.property('platformMessageIds.length', 4);
    });

    it('sends a location with sendLocation, and a named place with sendVenue', async () => {
      await send({ type: 'LOCATION', latitude: 1.5, longitude: 2.5 });
      expect(fake.calls(bot, 'sendLocation')).to.deep.equal([{ chat_id: '555', latitude: 1.5, longitude: 2.5 }]);
      await send({ type: 'LOCATION', latitude: 1, longitude: 2, name: 'Office', address: '1 Main St' });
      expect(fake.calls(bot, 'sendVenue')).to.deep.equal([
        { chat_id: '555', latitude: 1, longitude: 2, title: 'Office', address: '1 Main St' },
      ]);
    });

    it('sends a contact card with sendContact', async () => {
      await send({ type: 'CONTACT_CARD', name: 'Alan Mathison Turing', phones: ['+447700900123'], emails: [] });
      expect(fake.calls(bot, 'sendContact')).to.deep.equal([
        { chat_id: '555', phone_number: '+447700900123', first_name: 'Alan', last_name: 'Mathison Turing' },
      ]);
    });

    it('sends buttons as an inline keyboard whose callback_data is the button id', async () => {
      await send({
        type: 'BUTTONS',
        text: 'Pick one',
        buttons: [
          { id: 'yes', title: 'Yes' },
          { id: 'no', title: 'No' },
        ],
      });
      expect(fake.calls(bot, 'sendMessage')).to.deep.equal([
        {
          chat_id: '555',
          text: 'Pick one',
          reply_markup: {
            inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }], [{ text: 'No', callback_data: 'no' }]],
          },
        },
      ]);
    });

    it('refuses a template as permanent without calling the platform', async () => {
      const result = await send({ type: 'TEMPLATE', name: 't', language: 'en', components: [] });
      expect(result).to.deep.equal({
        ok: false,
        error: { transient: false, code: 'unsupported_content', message: 'CHAT_APP_B has no message templates' },
      });
      expect(fake.requests.filter((r) => r.path.includes(bot.token) && !r.path.endsWith('getMe'))).to.deep.equal([]);
    });
  });

  describe('errors', () => {
    it('classifies 429 as transient and honours retry_after', async () => {
      fake.failMethod('sendMessage', 429, 'Too Many Requests: retry after 7', { retryAfter: 7 });
      const result = await send({ type: 'TEXT', text: 'x' });
      expect(result).to.deep.equal({
        ok: false,
        error: { transient: true, code: '429', message: 'Too Many Requests: retry after 7', retryAfterMs: 7000 },
      });
    });

    it('classifies 5xx and a body that is not the envelope as transient', async () => {
      fake.failMethod('sendMessage', 502, 'Bad Gateway');
      expect(await send({ type: 'TEXT', text: 'x' })).to.have.nested.property('error.transient', true);
      fake.failNext((r) => r.path.endsWith('/sendMessage'), { status: 503, body: '<html>busy</html>' });
      expect(await send({ type: 'TEXT', text: 'x' })).to.deep.equal({
        ok: false,
        error: { transient: true, code: 'http_503', message: 'HTTP 503' },
      });
    });

    it('classifies chat not found (400) and a blocked bot (403) as permanent, with the platform words', async () => {
      fake.failMethod('sendMessage', 400, 'Bad Request: chat not found');
      expect(await send({ type: 'TEXT', text: 'x' })).to.deep.equal({
        ok: false,
        error: { transient: false, code: '400', message: 'Bad Request: chat not found' },
      });
      fake.failMethod('sendMessage', 403, 'Forbidden: bot was blocked by the user');
      expect(await send({ type: 'TEXT', text: 'x' })).to.deep.equal({
        ok: false,
        error: { transient: false, code: '403', message: 'Forbidden: bot was blocked by the user' },
      });
    });

    it('classifies a revoked token (401) as needing reauthorisation', async () => {
      fake.failMethod('sendMessage', 401, 'Unauthorized');
      expect(await send({ type: 'TEXT', text: 'x' })).to.have.deep.property('error', {
        transient: false,
        code: '401',
        message: 'Unauthorized',
        reauthorize: true,
      });
    });

    it('classifies a timeout as transient', async () => {
      const slow = new ChatAppBAdapter({ baseUrl: fake.apiUrl, timeoutMs: 100 });
      fake.failNext((r) => r.path.endsWith('/sendMessage'), {
        status: 200,
        body: { ok: true, result: {} },
        delayMs: 400,
      });
      expect(
        await slow.send(channel, { messageId: 'm', recipient: '1', content: { type: 'TEXT', text: 'x' } }),
      ).to.deep.equal({
        ok: false,
        error: { transient: true, code: 'timeout', message: 'the platform did not answer within 100 ms' },
      });
    });

    it('never puts the bot token in an error', async () => {
      fake.failMethod('sendMessage', 400, 'Bad Request: chat not found');
      const result = await send({ type: 'TEXT', text: 'x' });
      expect(JSON.stringify(result)).not.to.contain(bot.token);
    });
  });
});
