import { expect } from 'chai';
import { ApiScope, PrincipalSigner, eventually, grpcClient, importSigningKey, systemPrincipal, unary } from '@svc/kit';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { InboxServiceClient, MessageType, type Message } from '@svc/proto/inbox/v1';
import { MediaServiceClient } from '@svc/proto/inbox/v1/media';
import type { FakeBot } from '../fakes/chat-app-b';
import type { FakeViberAccount } from '../fakes/chat-app-c';
import { chatOfPlatformUser } from '../support/platform-channels';
import type { TestOrg } from '../support/stack-harness';
import { CONNECT_B, CONNECT_C, PlatformStack, type ChannelView } from './channels-platform-fixtures';
import { dataOf } from './inbox-fixtures';

/**
 * CHAT_APP_B (Telegram shape) and CHAT_APP_C (Viber shape) through the whole stack: channels connected through
 * GraphQL against the fakes, which then deliver to the webhook they registered on the stack's own port, as the
 * platforms would; contacts, chats, messages and media are read back from the services.
 */
describe('Bot platforms through the stack (ChatAppB, ChatAppC)', function () {
  const platforms = new PlatformStack();
  let org: TestOrg;
  let key: string;
  let agentKey: string;
  let signer: PrincipalSigner;
  let contacts: ContactsServiceClient;
  let inbox: InboxServiceClient;
  let media: MediaServiceClient;

  before(async () => {
    // The sender looks for due retries every 100 ms (the retry_after test).
    await platforms.start({ DELIVERY_POLL_MS: '100' });
    const harness = platforms.harness;
    org = await harness.newOrg('Bots');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    agentKey = (await org.mintKey([ApiScope.MESSAGES_SEND, ApiScope.MESSAGES_READ])).key;
    signer = new PrincipalSigner(
      'channels',
      importSigningKey('channels', JSON.stringify(harness.stack.trustKeys.signing.channels)),
    );
    contacts = grpcClient(ContactsServiceClient, `127.0.0.1:${harness.stack.contacts.grpcPort}`);
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
    media = grpcClient(MediaServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
  });
  after(async () => {
    for (const client of [contacts, inbox, media]) client.close();
    await platforms.stop();
  });

  const as = (audience: string) => signer.metadata(systemPrincipal(org.id), audience);
  const gql = <T>(query: string, variables: Record<string, unknown>) =>
    platforms.harness.graphql<T>(query, variables, key);

  const chatOf = (channelId: string, platformUserId: string) =>
    chatOfPlatformUser(platforms.harness, org.id, channelId, platformUserId);

  async function messages(chatId: string, count: number): Promise<Message[]> {
    const read = async () =>
      (await unary(inbox.getMessages.bind(inbox), { chatId, input: { limit: 100 } }, as('inbox'))).data;
    await eventually(async () => (await read()).length >= count, 10_000, `${count} messages`);
    return read();
  }

  interface Sent {
    _id: string;
    deliveryStatus: string;
    failureReason: string | null;
  }
  /** An agent's reply through the public API. */
  const reply = async (chatId: string, text: string): Promise<Sent> => {
    const sent = await platforms.harness.graphql<{ sendMessage: Sent }>(
      'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id deliveryStatus failureReason } }',
      { c: chatId, i: { text } },
      agentKey,
    );
    if (!sent.body.data) throw new Error(`sendMessage failed: ${JSON.stringify(sent.body)}`);
    return sent.body.data.sendMessage;
  };
  const messageOf = async (chatId: string, id: string) => (await messages(chatId, 1)).find((m) => m._id === id);
  const awaitStatus = (chatId: string, id: string, status: string) =>
    eventually(
      async () => {
        const message = await messageOf(chatId, id);
        return message?.deliveryStatus === status ? message : undefined;
      },
      10_000,
      `${id} ${status}`,
    );

  /** Lets the consumer drain: a marker delivered after `deliveries` is stored only once they were processed. */
  const settle = async (chatId: string, count: number, marker: () => Promise<unknown>) => {
    await marker();
    return messages(chatId, count);
  };

  describe('CHAT_APP_B (Telegram Bot API shape)', () => {
    let bot: FakeBot;
    let channelId: string;

    before(async () => {
      bot = platforms.b.addBot();
      const connected = await gql<{ connectChatAppBChannel: ChannelView }>(CONNECT_B, { i: { botToken: bot.token } });
      channelId = dataOf(connected).connectChatAppBChannel.id;
    });

    it('stores a text update once with the user as a contact of the channel; a redelivery adds nothing', async () => {
      const user = platforms.b.user({ first_name: 'Tess', last_name: 'Gram', username: 'tess' });
      const update = platforms.b.textUpdate(bot, user, 'Hello from Telegram');
      expect((await platforms.b.deliverUpdate(bot, update)).status).to.equal(200);
      const chatId = await chatOf(channelId, String(user.id));
      expect((await platforms.b.deliverUpdate(bot, update)).status).to.equal(200);
      const stored = await settle(chatId, 2, () =>
        platforms.b.deliverUpdate(bot, platforms.b.textUpdate(bot, user, 'marker')),
      );
      expect(stored.map((m) => m.text)).to.deep.equal(['Hello from Telegram', 'marker']);
    });

    it('refuses an update without the secret token, or with another, with 401 and stores nothing', async () => {
      const user = platforms.b.user();
      const update = platforms.b.textUpdate(bot, user, 'forged');
      expect((await platforms.b.deliverUpdate(bot, update, { secretToken: null })).status).to.equal(401);
      expect((await platforms.b.deliverUpdate(bot, update, { secretToken: 'guessed' })).status).to.equal(401);
      const lookup = await unary(
        contacts.lookupContact.bind(contacts),
        { identifierType: IdentifierType.CHANNEL_USER_ID, value: String(user.id), channelIntegrationId: channelId },
        as('contacts'),
      );
      expect(lookup.found).to.equal(false);
    });

    it('fetches a document through getFile into the media library, and records an inline button tap and an edit', async () => {
      const user = platforms.b.user();
      const fileId = platforms.b.addFile(bot, 'PDF-BYTES', 'application/pdf', 'invoice.pdf');
      await platforms.b.deliverUpdate(
        bot,
        platforms.b.messageUpdate(bot, user, {
          document: { file_id: fileId, file_unique_id: 'u1', file_name: 'invoice.pdf', mime_type: 'application/pdf' },
          caption: 'my invoice',
        }),
      );
      const chatId = await chatOf(channelId, String(user.id));
      const [withFile] = await messages(chatId, 1);
      expect(withFile?.text).to.equal('my invoice');
      expect(platforms.b.calls(bot, 'getFile')).to.deep.include({ file_id: fileId });
      const library = await unary(media.listChatMedia.bind(media), { chatId, input: {} }, as('inbox'));
      expect(library.data).to.have.length(1);

      const reply_markup = { inline_keyboard: [[{ text: 'Yes please', callback_data: 'yes' }]] };
      const tapUpdate = platforms.b.callbackUpdate(bot, user, { message_id: 5, text: 'Sure?', reply_markup }, 'yes');
      const tapAnswer = await platforms.b.deliverUpdate(bot, tapUpdate);
      // Telegram takes the webhook response as a method call: the tap is acknowledged there (decision 0131).
      expect(tapAnswer.status).to.equal(200);
      expect(JSON.parse(tapAnswer.text)).to.deep.equal({
        method: 'answerCallbackQuery',
        callback_query_id: (tapUpdate['callback_query'] as { id: string }).id,
      });
      await platforms.b.deliverUpdate(
        bot,
        platforms.b.messageUpdate(bot, user, { text: 'typo fixed' }, { edited: true, messageId: 99 }),
      );
      const [, tap, edit] = await messages(chatId, 3);
      expect(tap).to.deep.include({ type: MessageType.BUTTONS, text: 'Yes please' });
      expect(tap?.buttons.map((b) => [b.id, b.title])).to.deep.equal([['yes', 'Yes please']]);
      expect(edit?.text).to.equal('typo fixed');
    });

    it('waits the retry_after a 429 asks for, then sends once more: SENT', async () => {
      const user = platforms.b.user();
      await platforms.b.deliverUpdate(bot, platforms.b.textUpdate(bot, user, 'hi'));
      const chatId = await chatOf(channelId, String(user.id));
      platforms.b.failMethod('sendMessage', 429, 'Too Many Requests: retry after 1', { retryAfter: 1 });
      const sent = await reply(chatId, 'after the wait');
      await awaitStatus(chatId, sent._id, 'SENT');
      const attempts = platforms.b
        .received('POST', new RegExp(`/bot${bot.id}:[^/]+/sendMessage$`))
        .filter((r) => (r.json as { text?: string } | undefined)?.text === 'after the wait');
      expect(attempts).to.have.length(2);
      expect(attempts[1]!.at - attempts[0]!.at).to.be.at.least(1000);
    });

    it("fails a reply to a user who blocked the bot at once, with Telegram's words, and sends it once", async () => {
      const user = platforms.b.user();
      await platforms.b.deliverUpdate(bot, platforms.b.textUpdate(bot, user, 'hi'));
      const chatId = await chatOf(channelId, String(user.id));
      platforms.b.failMethod('sendMessage', 403, 'Forbidden: bot was blocked by the user');
      const sent = await reply(chatId, 'are you there?');
      const failed = await awaitStatus(chatId, sent._id, 'FAILED');
      expect(failed.failureReason).to.contain('Forbidden: bot was blocked by the user');
      expect(platforms.b.calls(bot, 'sendMessage').filter((c) => c['text'] === 'are you there?')).to.have.length(1);
    });
  });

  describe('CHAT_APP_C (Viber REST bot API shape)', () => {
    let account: FakeViberAccount;
    let channelId: string;

    before(async () => {
      account = platforms.c.addAccount('Acme Viber');
      const connected = await gql<{ connectChatAppCChannel: ChannelView }>(CONNECT_C, {
        i: { authToken: account.authToken },
      });
      channelId = dataOf(connected).connectChatAppCChannel.id;
    });

    it("passed Viber's signed webhook check at connect: our route answered it 200", () => {
      expect(account.webhook?.url).to.equal(platforms.inboundUrl(channelId));
      expect(platforms.c.webhookChecks.filter((c) => c.url === account.webhook?.url)).to.deep.equal([
        { url: platforms.inboundUrl(channelId), status: 200 },
      ]);
    });

    it('stores a signed message once (the 64-bit token deduplicates); subscribe and conversation callbacks store nothing', async () => {
      const user = platforms.c.user({ name: 'Vera Viber' });
      const token = platforms.c.newToken();
      const body = platforms.c.textCallback(user, 'Hello from Viber', token);
      expect(
        (await platforms.c.deliverCallback(account, platforms.c.conversationStartedCallback(user))).status,
      ).to.equal(200);
      expect((await platforms.c.deliverCallback(account, platforms.c.subscribedCallback(user))).status).to.equal(200);
      expect((await platforms.c.deliverCallback(account, body)).status).to.equal(200);
      const chatId = await chatOf(channelId, user.id);
      expect((await platforms.c.deliverCallback(account, body)).status).to.equal(200);
      const stored = await settle(chatId, 2, () =>
        platforms.c.deliverCallback(account, platforms.c.textCallback(user, 'marker')),
      );
      expect(stored.map((m) => m.text)).to.deep.equal(['Hello from Viber', 'marker']);
    });

    it('refuses a callback with a wrong or missing signature with 401 and stores nothing', async () => {
      const user = platforms.c.user();
      const body = platforms.c.textCallback(user, 'forged');
      expect((await platforms.c.deliverCallback(account, body, { signature: 'ab'.repeat(32) })).status).to.equal(401);
      expect((await platforms.c.deliverCallback(account, body, { signature: null })).status).to.equal(401);
      const lookup = await unary(
        contacts.lookupContact.bind(contacts),
        { identifierType: IdentifierType.CHANNEL_USER_ID, value: user.id, channelIntegrationId: channelId },
        as('contacts'),
      );
      expect(lookup.found).to.equal(false);
    });

    it("fetches a picture from Viber's media URL into the media library, and a location as a location", async () => {
      const user = platforms.c.user();
      await platforms.c.deliverCallback(
        account,
        platforms.c.messageCallback(user, { type: 'picture', text: 'look', media: platforms.c.mediaUrl('photo.jpg') }),
      );
      const chatId = await chatOf(channelId, user.id);
      await messages(chatId, 1);
      await platforms.c.deliverCallback(
        account,
        platforms.c.messageCallback(user, { type: 'location', location: { lat: 48.85, lon: 2.35 } }),
      );
      const [picture, place] = await messages(chatId, 2);
      expect(picture?.text).to.equal('look');
      const library = await unary(media.listChatMedia.bind(media), { chatId, input: {} }, as('inbox'));
      expect(library.data).to.have.length(1);
      expect(place).to.deep.include({ type: MessageType.LOCATION });
      expect(place?.location).to.deep.include({ latitude: 48.85, longitude: 2.35 });
    });

    it('sends a reply as the account with send_message; seen before delivered ends READ and never regresses', async () => {
      const user = platforms.c.user();
      await platforms.c.deliverCallback(account, platforms.c.textCallback(user, 'hi'));
      const chatId = await chatOf(channelId, user.id);
      const sent = await reply(chatId, 'Hello from the team');
      await awaitStatus(chatId, sent._id, 'SENT');
      const call = platforms.c.calls(account, 'send_message').find((c) => c['text'] === 'Hello from the team');
      expect(call).to.deep.include({
        receiver: user.id,
        type: 'text',
        sender: { name: 'Acme Viber', avatar: account.icon },
      });
      const token = platforms.c.sentTokens.at(-1)!;
      expect(await platforms.c.deliverStatuses(account, token, user.id, ['seen', 'delivered'])).to.deep.equal([
        200, 200,
      ]);
      await awaitStatus(chatId, sent._id, 'READ');
      const marker = await reply(chatId, 'marker');
      await awaitStatus(chatId, marker._id, 'SENT');
      await platforms.c.deliverStatuses(account, platforms.c.sentTokens.at(-1)!, user.id, ['delivered']);
      await awaitStatus(chatId, marker._id, 'DELIVERED');
      expect((await messageOf(chatId, sent._id))?.deliveryStatus).to.equal('READ');
    });

    it('fails a reply to a user who unsubscribed at once with status 6 and its explanation', async () => {
      const user = platforms.c.user();
      await platforms.c.deliverCallback(account, platforms.c.textCallback(user, 'hi'));
      const chatId = await chatOf(channelId, user.id);
      await platforms.c.deliverCallback(account, platforms.c.unsubscribedCallback(user.id));
      const sent = await reply(chatId, 'still there?');
      const failed = await awaitStatus(chatId, sent._id, 'FAILED');
      expect(failed.failureReason).to.match(/not subscribed to the account/);
      expect(platforms.c.calls(account, 'send_message').filter((c) => c['text'] === 'still there?')).to.have.length(1);
    });
  });
});
