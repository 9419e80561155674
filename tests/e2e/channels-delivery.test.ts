import { expect } from 'chai';
import {
  ApiScope,
  PrincipalSigner,
  eventually,
  grpcClient,
  importSigningKey,
  newId,
  systemPrincipal,
  unary,
} from '@svc/kit';
import { ChannelStatus } from '@svc/proto/channels/v1';
import { InboxServiceClient, type Message } from '@svc/proto/inbox/v1';
import { OutboundDeliveryRow } from '@svc/channels/dist/src/entities';
import { MESSAGING_WINDOW_HOURS } from '@svc/inbox';
import { FakeChatAppA, type ChatAppAAccount } from '../fakes/chat-app-a';
import { FakeChatAppB, telegramError, type FakeBot } from '../fakes/chat-app-b';
import { FakeSocialAppD } from '../fakes/social-app-d';
import { chatOfPlatformUser, setChannelStatus } from '../support/platform-channels';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { CONNECT_A, CONNECT_B, CONNECT_D, DISCONNECT, PAUSE, RESUME } from './channels-platform-fixtures';

interface Connected {
  channelId: string;
  url: string;
}

interface SentMessage {
  _id: string;
  deliveryStatus: string;
  failureReason: string | null;
}

/**
 * Outbound delivery to the messaging platforms (issue 16, decisions 0140-0142), through the whole stack: an agent's
 * sendMessage goes through the inbox's event, channels' consumer and sender, and the adapter to a fake platform; the
 * fakes answer, fail and call back as the platforms do.
 */
describe('Channels delivery (whole stack, fake platforms)', function () {
  const chatAppA = new FakeChatAppA();
  const chatAppB = new FakeChatAppB();
  const socialAppD = new FakeSocialAppD();
  let harness: StackHarness;
  let org: TestOrg;
  let key = '';
  let signer: PrincipalSigner;
  let inbox: InboxServiceClient;

  before(async () => {
    await Promise.all([chatAppA.start(), chatAppB.start(), socialAppD.start()]);
    harness = new StackHarness(
      // A platform call gives up after 1 s (the timeout test), the sender looks for due retries every 100 ms.
      { PLATFORM_TIMEOUT_MS: '1000', DELIVERY_POLL_MS: '100' },
      {},
      {
        platformUrls: {
          CHAT_APP_A_API_URL: chatAppA.url,
          CHAT_APP_B_API_URL: chatAppB.url,
          SOCIAL_APP_D_API_URL: socialAppD.url,
        },
      },
    );
    await harness.start();
    org = await harness.newOrg('Delivery');
    key = (await org.mintKey([ApiScope.MESSAGES_SEND, ApiScope.MESSAGES_READ])).key;
    signer = new PrincipalSigner(
      'channels',
      importSigningKey('channels', JSON.stringify(harness.stack.trustKeys.signing.channels)),
    );
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
  });
  after(async () => {
    inbox.close();
    await harness.stop();
    await Promise.all([chatAppA.stop(), chatAppB.stop(), socialAppD.stop()]);
  });

  const as = (audience: string, orgId = org.id) => signer.metadata(systemPrincipal(orgId), audience);
  const sender = () => {
    const found = harness.stack.channels.sender;
    if (!found) throw new Error('channels has no sender');
    return found;
  };

  const MESSAGE = '_id deliveryStatus failureReason';
  const sendMessage = (chatId: string, input: Record<string, unknown>, token = key) =>
    harness.graphql<{ sendMessage: SentMessage }>(
      `mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { ${MESSAGE} } }`,
      { c: chatId, i: input },
      token,
    );
  const reply = async (chatId: string, text: string): Promise<SentMessage> => {
    const sent = await sendMessage(chatId, { text });
    const message = sent.body.data?.sendMessage;
    if (!message) throw new Error(`sendMessage failed: ${JSON.stringify(sent.body)}`);
    return message;
  };
  const retry = (messageId: string, token = key) =>
    harness.graphql<{ retryFailedMessage: SentMessage }>(
      `mutation($m: String!) { retryFailedMessage(messageId: $m) { ${MESSAGE} } }`,
      { m: messageId },
      token,
    );

  async function messageOf(chatId: string, messageId: string): Promise<Message> {
    const page = await unary(inbox.getMessages.bind(inbox), { chatId, input: { limit: 100 } }, as('inbox'));
    const found = page.data.find((m) => m._id === messageId);
    if (!found) throw new Error(`message ${messageId} not in chat ${chatId}`);
    return found;
  }
  const statusOf = async (chatId: string, messageId: string) => (await messageOf(chatId, messageId)).deliveryStatus;
  const awaitStatus = (chatId: string, messageId: string, status: string) =>
    eventually(async () => (await statusOf(chatId, messageId)) === status, 10_000, `${messageId} ${status}`);

  const chatOf = (channelId: string, platformUserId: string) =>
    chatOfPlatformUser(harness, org.id, channelId, platformUserId);

  /** Connects a channel through the GraphQL connect mutation, as the org's owner. */
  async function connect(mutation: string, input: Record<string, string>): Promise<Connected> {
    const answer = await harness.graphql<Record<string, { id: string }>>(mutation, { i: input }, org.sessionToken);
    const id = Object.values(answer.body.data ?? {})[0]?.id;
    if (!id) throw new Error(`connect failed: ${JSON.stringify(answer.body)}`);
    return { channelId: id, url: `${harness.url}/channels/in/${id}` };
  }
  const pauseOrResume = async (mutation: string, id: string) => {
    const answer = await harness.graphql(mutation, { id }, org.sessionToken);
    if (answer.body.errors) throw new Error(JSON.stringify(answer.body.errors));
  };

  const deliveryRow = (messageId: string) =>
    harness.stack.channels.dataSource.getRepository(OutboundDeliveryRow).findOneByOrFail({ id: messageId });

  describe('CHAT_APP_A (WhatsApp Cloud API shape)', () => {
    let account: ChatAppAAccount;
    let channel: Connected;
    const isSend = (r: { method: string; path: string }) =>
      r.method === 'POST' && r.path === `/${account.phoneNumberId}/messages`;
    const sendsOf = (text: string) =>
      chatAppA.requests.filter(
        (r) => isSend(r) && (r.json as { text?: { body?: string } } | undefined)?.text?.body === text,
      );

    before(async () => {
      account = chatAppA.account();
      channel = await connect(CONNECT_A, FakeChatAppA.credentials(account));
    });

    /** A new platform user writes to the channel (opening the window); answers the user id and the chat. */
    async function userWrites(text = 'hello'): Promise<{ user: string; chatId: string }> {
      const user = `1555${Math.floor(Math.random() * 1e7)}`;
      const answer = await chatAppA.deliver(
        channel.url,
        account,
        chatAppA.messagesWebhook(account, {
          messages: [chatAppA.inboundMessage(user, 'text', { body: text })],
          names: { [user]: 'Ada' },
        }),
      );
      expect(answer.status).to.equal(200);
      return { user, chatId: await chatOf(channel.channelId, user) };
    }

    it('sends an agent’s reply once, in the Cloud API request shape, and marks it SENT', async () => {
      const { user, chatId } = await userWrites();
      const message = await reply(chatId, 'How can we help?');
      expect(message.deliveryStatus).to.equal('QUEUED');
      await awaitStatus(chatId, message._id, 'SENT');
      const [sent, ...more] = chatAppA.sentTo(user);
      expect(more, 'sent once').to.deep.equal([]);
      expect(sent?.body).to.deep.include({ messaging_product: 'whatsapp', to: user, type: 'text' });
      expect(sent?.body.text).to.deep.include({ body: 'How can we help?' });
      const location = await sendMessage(chatId, {
        type: 'LOCATION',
        location: { latitude: 51.5, longitude: -0.12, name: 'London' },
      });
      await awaitStatus(chatId, location.body.data?.sendMessage._id ?? '', 'SENT');
      expect(chatAppA.sentTo(user)[1]?.body).to.deep.include({
        type: 'location',
        location: { latitude: 51.5, longitude: -0.12, name: 'London' },
      });
    });

    it('moves statuses forward only, whatever order the callbacks arrive in', async () => {
      const { user, chatId } = await userWrites();
      const message = await reply(chatId, 'order check');
      await awaitStatus(chatId, message._id, 'SENT');
      const wamid = (await deliveryRow(message._id)).platformMessageIds?.[0] ?? '';
      expect(wamid).to.match(/^wamid\./);
      await chatAppA.deliverStatuses(channel.url, account, [
        chatAppA.status(wamid, 'read', user),
        chatAppA.status(wamid, 'delivered', user),
        chatAppA.status(wamid, 'sent', user),
        chatAppA.status(wamid, 'failed', user, { code: 131026, title: 'Message undeliverable' }),
      ]);
      await awaitStatus(chatId, message._id, 'READ');
      // The later callbacks were applied (the inbound events are consumed in order) and changed nothing.
      const other = await reply(chatId, 'delivered only');
      await awaitStatus(chatId, other._id, 'SENT');
      const otherWamid = (await deliveryRow(other._id)).platformMessageIds?.[0] ?? '';
      await chatAppA.deliverStatuses(channel.url, account, [chatAppA.status(otherWamid, 'delivered', user)]);
      await awaitStatus(chatId, other._id, 'DELIVERED');
      expect(await statusOf(chatId, message._id)).to.equal('READ');
    });

    it('retries 429, 5xx and timeouts with backoff until the platform takes the message, sent once', async () => {
      const { chatId } = await userWrites();
      chatAppA.failNext(isSend, { status: 429, body: { error: { code: 130429, message: 'Rate limit hit' } } });
      chatAppA.failNext(isSend, {
        status: 503,
        body: { error: { code: 2, message: 'Service temporarily unavailable' } },
      });
      chatAppA.failNext(isSend, { status: 200, body: { messages: [{ id: 'wamid.late' }] }, delayMs: 1_500 });
      const message = await reply(chatId, 'try until it works');
      await awaitStatus(chatId, message._id, 'SENT');
      expect(sendsOf('try until it works'), 'three failures, then the one that was taken').to.have.length(4);
      const row = await deliveryRow(message._id);
      expect([row.state, row.attempts, row.failureCode]).to.deep.equal(['SENT', 4, 'timeout']);
    });

    it('fails a permanent error at once with the platform’s code and words, and refuses to retry it', async () => {
      const { chatId } = await userWrites();
      chatAppA.failNext(isSend, {
        status: 400,
        body: { error: { code: 131026, message: 'Message undeliverable', type: 'OAuthException' } },
      });
      const message = await reply(chatId, 'to a number without the app');
      await awaitStatus(chatId, message._id, 'FAILED');
      expect((await messageOf(chatId, message._id)).failureReason).to.match(/Message undeliverable.*131026/);
      expect(sendsOf('to a number without the app')).to.have.length(1);
      const refused = await retry(message._id);
      expect(refused.body.errors?.[0]?.extensions).to.deep.include({
        code: 'FAILED_PRECONDITION',
        reason: 'PERMANENT_FAILURE',
      });
    });

    it('retryFailedMessage sends a message the platform refused outside its window again, as the same message', async () => {
      const { chatId } = await userWrites();
      chatAppA.failNext(isSend, {
        status: 400,
        body: { error: { code: 131047, message: 'Re-engagement message', type: 'OAuthException' } },
      });
      const message = await reply(chatId, 'send me again');
      await awaitStatus(chatId, message._id, 'FAILED');
      const retried = await retry(message._id);
      expect(retried.body.data?.retryFailedMessage).to.deep.equal({
        _id: message._id,
        deliveryStatus: 'QUEUED',
        failureReason: null,
      });
      await awaitStatus(chatId, message._id, 'SENT');
      expect(sendsOf('send me again'), 'the refused attempt and the new one').to.have.length(2);
      const again = await retry(message._id);
      expect(again.body.errors?.[0]?.extensions).to.deep.include({ reason: 'NOT_FAILED' });
    });

    it('holds a paused channel’s messages and sends them on resume; a retry while paused is refused', async () => {
      const { chatId } = await userWrites();
      chatAppA.failNext(isSend, { status: 400, body: { error: { code: 131047, message: 'Re-engagement message' } } });
      const failed = await reply(chatId, 'failed before the pause');
      await awaitStatus(chatId, failed._id, 'FAILED');
      await pauseOrResume(PAUSE, channel.channelId);
      let held: SentMessage | undefined;
      try {
        held = await reply(chatId, 'held while paused');
        const heldId = held._id;
        await eventually(async () => (await deliveryRow(heldId).catch(() => undefined))?.state === 'PENDING');
        await sender().runOnce();
        expect((await deliveryRow(heldId)).state).to.equal('PENDING');
        expect(sendsOf('held while paused')).to.have.length(0);
        expect((await retry(failed._id)).body.errors?.[0]?.extensions).to.deep.include({ reason: 'CHANNEL_PAUSED' });
      } finally {
        await pauseOrResume(RESUME, channel.channelId);
      }
      await awaitStatus(chatId, held._id, 'SENT');
      expect(sendsOf('held while paused')).to.have.length(1);
    });

    it('holds the queue when the platform refuses the token, until the channel is connected again', async () => {
      const { chatId } = await userWrites();
      chatAppA.failNext(isSend, {
        status: 401,
        body: { error: { code: 190, message: 'Error validating access token', type: 'OAuthException' } },
      });
      const message = await reply(chatId, 'after the token expired');
      const channelRow = () =>
        harness.stack.channels.dataSource.query('SELECT status FROM channels WHERE id = ?', [channel.channelId]);
      await eventually(
        async () => ((await channelRow()) as { status: string }[])[0]?.status === 'NEEDS_REAUTHORIZATION',
      );
      await sender().runOnce();
      expect(await statusOf(chatId, message._id)).to.equal('QUEUED');
      await setChannelStatus(harness, channel.channelId, ChannelStatus.ACTIVE);
      await awaitStatus(chatId, message._id, 'SENT');
      expect(sendsOf('after the token expired')).to.have.length(2);
    });
  });

  describe('CHAT_APP_B (Telegram Bot API shape)', () => {
    let bot: FakeBot;
    let channel: Connected;
    before(async () => {
      bot = chatAppB.addBot();
      channel = await connect(CONNECT_B, { botToken: bot.token });
    });

    it('sends an agent’s reply with sendMessage to the user’s chat, once', async () => {
      const user = chatAppB.user();
      expect((await chatAppB.deliverUpdate(bot, chatAppB.textUpdate(bot, user, 'hi bot'))).status).to.equal(200);
      const chatId = await chatOf(channel.channelId, String(user.id));
      const message = await reply(chatId, 'Hello from the team');
      await awaitStatus(chatId, message._id, 'SENT');
      const sent = chatAppB.calls(bot, 'sendMessage').filter((c) => c['text'] === 'Hello from the team');
      expect(sent).to.have.length(1);
      expect(sent[0]).to.deep.include({ chat_id: String(user.id) });
    });

    it('a long text split in two whose second part fails once is resumed: each part reaches the platform once', async () => {
      const user = chatAppB.user();
      expect((await chatAppB.deliverUpdate(bot, chatAppB.textUpdate(bot, user, 'hi bot'))).status).to.equal(200);
      const chatId = await chatOf(channel.channelId, String(user.id));
      const [first, second] = ['a'.repeat(4096), `b${newId()}`];
      chatAppB.failNext(
        (r) => r.path.endsWith('/sendMessage') && (r.json as { text?: string } | undefined)?.text === second,
        telegramError(502, 'Bad Gateway'),
      );
      const message = await reply(chatId, first + second);
      await awaitStatus(chatId, message._id, 'SENT');
      const texts = chatAppB.calls(bot, 'sendMessage').map((c) => c['text']);
      expect(
        texts.filter((t) => t === first),
        'part 1, taken by the first attempt',
      ).to.have.length(1);
      expect(
        texts.filter((t) => t === second),
        'part 2: refused once, then taken',
      ).to.have.length(2);
      const row = await deliveryRow(message._id);
      expect([row.state, row.attempts, row.platformMessageIds?.length]).to.deep.equal(['SENT', 2, 2]);
    });
  });

  describe('a disconnected channel', () => {
    it('fails what was held for it, and refuses to retry it', async () => {
      const bot = chatAppB.addBot();
      const channel = await connect(CONNECT_B, { botToken: bot.token });
      const user = chatAppB.user();
      await chatAppB.deliverUpdate(bot, chatAppB.textUpdate(bot, user, 'hi'));
      const chatId = await chatOf(channel.channelId, String(user.id));
      await pauseOrResume(PAUSE, channel.channelId);
      const held = await reply(chatId, 'held, then the channel goes');
      await eventually(async () => (await deliveryRow(held._id).catch(() => undefined))?.state === 'PENDING');
      await pauseOrResume(DISCONNECT, channel.channelId);
      await awaitStatus(chatId, held._id, 'FAILED');
      expect((await messageOf(chatId, held._id)).failureReason).to.match(/disconnected.*\(channel_disconnected\)/);
      expect(chatAppB.calls(bot, 'sendMessage')).to.deep.equal([]);
      expect((await retry(held._id)).body.errors?.[0]?.extensions).to.deep.include({ reason: 'CHANNEL_DISCONNECTED' });
    });
  });

  describe('SOCIAL_APP_D (Messenger shape)', () => {
    it('sends with the Send API shape and applies delivery and read watermarks to what was sent before them', async () => {
      const page = socialAppD.page();
      const channel = await connect(CONNECT_D, FakeSocialAppD.credentials(page));
      const psid = `${Date.now()}${Math.floor(Math.random() * 1000)}`;
      const wrote = await socialAppD.deliver(
        channel.url,
        page,
        socialAppD.webhook(page, [socialAppD.text(page, psid, 'hi page')]),
      );
      expect(wrote.status).to.equal(200);
      const chatId = await chatOf(channel.channelId, psid);
      const first = await reply(chatId, 'first answer');
      const second = await reply(chatId, 'second answer');
      await awaitStatus(chatId, first._id, 'SENT');
      await awaitStatus(chatId, second._id, 'SENT');
      expect(socialAppD.sentTo(psid)[0]?.body).to.deep.include({
        recipient: { id: psid },
        messaging_type: 'RESPONSE',
        message: { text: 'first answer' },
      });
      const watermark = Date.now();
      const later = await reply(chatId, 'after the watermark');
      await awaitStatus(chatId, later._id, 'SENT');
      await socialAppD.deliver(
        channel.url,
        page,
        socialAppD.webhook(page, [socialAppD.delivery(page, psid, watermark)]),
      );
      await awaitStatus(chatId, second._id, 'DELIVERED');
      await socialAppD.deliver(channel.url, page, socialAppD.webhook(page, [socialAppD.read(page, psid, watermark)]));
      await awaitStatus(chatId, first._id, 'READ');
      await awaitStatus(chatId, second._id, 'READ');
      expect(await statusOf(chatId, later._id), 'sent after the watermark').to.equal('SENT');
    });
  });

  describe('retryFailedMessage refusals', () => {
    it('refuses a web chat’s message, a bad id naming the field, a key without MESSAGES_SEND, and another org’s message', async () => {
      const webChat = await org.openChat();
      const web = await reply(webChat, 'on the widget');
      expect((await retry(web._id)).body.errors?.[0]?.extensions).to.deep.include({
        code: 'FAILED_PRECONDITION',
        reason: 'NOT_A_PLATFORM_CHAT',
      });
      expect((await retry('nope')).body.errors?.[0]?.extensions).to.deep.equal({
        code: 'BAD_USER_INPUT',
        field: 'messageId',
      });
      const reader = (await org.mintKey([ApiScope.MESSAGES_READ])).key;
      expect((await retry(web._id, reader)).body.errors?.[0]?.extensions?.code).to.equal('FORBIDDEN');
      const other = await harness.newOrg('Other');
      const otherKey = (await other.mintKey([ApiScope.MESSAGES_SEND])).key;
      const stranger = await retry(web._id, otherKey);
      expect(stranger.body.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
      expect(stranger.body.errors?.[0]?.message).to.not.contain(web._id);
      expect((await retry(newId())).body.errors?.[0]?.extensions?.code).to.equal('NOT_FOUND');
    });
  });

  describe('the messaging window (decision 0140)', () => {
    const asSystem = (orgId: string) => harness.stack.signer.metadata(systemPrincipal(orgId), 'inbox');
    async function platformChat(channelType: string): Promise<string> {
      const chat = await unary(
        inbox.openChat.bind(inbox),
        { channelId: newId(), contact: { _id: newId(), name: 'Platform user' }, channelType },
        asSystem(org.id),
      );
      return chat._id;
    }

    it('refuses a free-form sendMessage on a CHAT_APP_A or SOCIAL_APP_D chat the contact has not written to in 24 hours', async () => {
      for (const type of ['CHAT_APP_A', 'SOCIAL_APP_D']) {
        const refused = await sendMessage(await platformChat(type), { text: 'hello?' });
        expect(refused.body.data ?? null, type).to.equal(null);
        expect(refused.body.errors?.[0]?.extensions, type).to.deep.equal({
          code: 'FAILED_PRECONDITION',
          reason: 'MESSAGING_WINDOW_CLOSED',
        });
        expect(refused.body.errors?.[0]?.message).to.match(/sendChatAppATemplateMessage/);
      }
    });

    it('lets it through once the contact wrote, and on kinds without a window', async () => {
      const chatId = await platformChat('CHAT_APP_A');
      await unary(
        inbox.receiveMessage.bind(inbox),
        { chatId, text: 'hi there', mediaIds: [], externalId: `wamid.${newId()}` },
        asSystem(org.id),
      );
      expect((await reply(chatId, 'how can we help?')).deliveryStatus).to.equal('QUEUED');
      expect((await reply(await platformChat('CHAT_APP_B'), 'hello')).deliveryStatus).to.equal('QUEUED');
    });

    it('states the same window hours as every adapter that has one', () => {
      for (const [type, adapter] of harness.stack.channels.adapters)
        expect(MESSAGING_WINDOW_HOURS[type], type).to.equal(adapter.messagingWindowHours);
    });
  });
});
