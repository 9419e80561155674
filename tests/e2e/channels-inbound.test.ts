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
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { InboxServiceClient, MessageType, type Message } from '@svc/proto/inbox/v1';
import { MediaServiceClient } from '@svc/proto/inbox/v1/media';
import { FakeChatAppA, type ChatAppAAccount } from '../fakes/chat-app-a';
import type { FakeBot } from '../fakes/chat-app-b';
import type { FakeViberAccount } from '../fakes/chat-app-c';
import { FakeSocialAppD, type SocialAppDPage } from '../fakes/social-app-d';
import type { StackHarness, TestOrg } from '../support/stack-harness';
import {
  CONNECT_A,
  CONNECT_B,
  CONNECT_C,
  CONNECT_D,
  DISCONNECT,
  PAUSE,
  PlatformStack,
  RESUME,
  type ChannelView,
} from './channels-platform-fixtures';
import { dataOf } from './inbox-fixtures';

/**
 * Inbound from the messaging platforms (issue 16, decisions 0135-0138), through the whole stack: the fakes post
 * webhooks to `/channels/in/<id>` on the stack's one port as the platforms would; contacts, chats, messages and media
 * are read back from the services.
 */
describe('Channels inbound (whole stack, fake platforms)', function () {
  const platforms = new PlatformStack();
  const chatAppA = platforms.a;
  const chatAppB = platforms.b;
  const chatAppC = platforms.c;
  const socialAppD = platforms.d;
  let harness: StackHarness;
  let org: TestOrg;
  let key: string;
  let signer: PrincipalSigner;
  let contacts: ContactsServiceClient;
  let inbox: InboxServiceClient;
  let media: MediaServiceClient;

  before(async () => {
    await platforms.start();
    harness = platforms.harness;
    org = await harness.newOrg('Inbound');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    const signing = JSON.stringify(harness.stack.trustKeys.signing.channels);
    signer = new PrincipalSigner('channels', importSigningKey('channels', signing));
    contacts = grpcClient(ContactsServiceClient, `127.0.0.1:${harness.stack.contacts.grpcPort}`);
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
    media = grpcClient(MediaServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
  });
  after(async () => {
    for (const client of [contacts, inbox, media]) client.close();
    await platforms.stop();
  });

  const as = (audience: string, orgId = org.id) => signer.metadata(systemPrincipal(orgId), audience);
  const inboundUrl = (channelId: string) => `${harness.url}/channels/in/${channelId}`;

  const CONNECT: Record<string, string> = {
    CHAT_APP_A: CONNECT_A,
    CHAT_APP_B: CONNECT_B,
    CHAT_APP_C: CONNECT_C,
    SOCIAL_APP_D: CONNECT_D,
  };

  /** Connects through GraphQL (the credentials checked at the fake, the webhook registered there). */
  async function connect(type: string, input: Record<string, string>) {
    const response = await harness.graphql<Record<string, ChannelView>>(CONNECT[type]!, { i: input }, key);
    const channelId = Object.values(dataOf(response))[0]!.id;
    // The secret the platform presents back (the GET verify token): generated at connect, never answered.
    const loaded = await harness.stack.channels.platformChannels!.load(channelId);
    return { channelId, webhookSecret: loaded!.channel.webhookSecret, url: inboundUrl(channelId) };
  }

  /** The contact of a platform user on a channel and its latest chat, once the consumer made them. */
  async function contactOf(channelId: string, platformUserId: string, orgId = org.id) {
    return eventually(async () => {
      const found = await unary(
        contacts.lookupContact.bind(contacts),
        { identifierType: IdentifierType.CHANNEL_USER_ID, value: platformUserId, channelIntegrationId: channelId },
        as('contacts', orgId),
      );
      return found.found && found.latestChatId ? found : undefined;
    });
  }

  async function messagesOf(chatId: string, orgId = org.id): Promise<Message[]> {
    const page = await unary(inbox.getMessages.bind(inbox), { chatId, input: { limit: 100 } }, as('inbox', orgId));
    return page.data;
  }

  /** Waits until the chat holds `count` messages, then answers them. */
  async function awaitMessages(chatId: string, count: number, orgId = org.id): Promise<Message[]> {
    await eventually(async () => (await messagesOf(chatId, orgId)).length >= count);
    return messagesOf(chatId, orgId);
  }

  describe('CHAT_APP_A (WhatsApp Cloud API shape)', () => {
    let account: ChatAppAAccount;
    let channel: { channelId: string; webhookSecret: string; url: string };
    before(async () => {
      account = chatAppA.account();
      channel = await connect('CHAT_APP_A', FakeChatAppA.credentials(account));
    });
    const deliver = (messages: Record<string, unknown>[], names: Record<string, string> = {}) =>
      chatAppA.deliver(channel.url, account, chatAppA.messagesWebhook(account, { messages, names }));

    it('answers the hub.* handshake with the verify token, and refuses another token', async () => {
      const ok = await chatAppA.verifyCallback(channel.url, channel.webhookSecret);
      expect([ok.status, ok.text]).to.deep.equal([200, ok.challenge]);
      expect((await chatAppA.verifyCallback(channel.url, 'guessed')).status).to.equal(403);
    });

    it('creates the contact (name and phone from the platform), its chat and the message once; a redelivery adds nothing', async () => {
      const user = '15550002001';
      const message = chatAppA.inboundMessage(user, 'text', { body: 'Hello from A' });
      const first = await deliver([message], { [user]: 'Ada Lovelace' });
      expect(first.status).to.equal(200);
      const { contactId, latestChatId } = await contactOf(channel.channelId, user);
      const [recorded] = await awaitMessages(latestChatId, 1);
      expect(recorded).to.deep.include({ text: 'Hello from A', type: MessageType.TEXT, authorId: contactId });
      const chat = await unary(inbox.getChat.bind(inbox), { chatId: latestChatId }, as('inbox'));
      expect(chat.channelId).to.equal(channel.channelId);
      expect(chat.contact).to.deep.include({ name: 'Ada Lovelace', phone: '+15550002001' });
      // The platform redelivers the same body, then a new one: only the new message is added.
      expect((await deliver([message], { [user]: 'Ada Lovelace' })).status).to.equal(200);
      await deliver([chatAppA.inboundMessage(user, 'text', { body: 'second' })]);
      const all = await awaitMessages(latestChatId, 2);
      expect(all.map((m) => m.text)).to.deep.equal(['Hello from A', 'second']);
      expect((await contactOf(channel.channelId, user)).contactId).to.equal(contactId);
    });

    it('records nothing for a redelivery after the chat was closed (a new thread would open)', async () => {
      const user = '15550002006';
      const message = chatAppA.inboundMessage(user, 'text', { body: 'before close' });
      await deliver([message]);
      const first = await contactOf(channel.channelId, user);
      await awaitMessages(first.latestChatId, 1);
      await unary(inbox.closeChat.bind(inbox), { chatId: first.latestChatId }, as('inbox'));
      await deliver([message]);
      await deliver([chatAppA.inboundMessage(user, 'text', { body: 'after close' })]);
      const reopened = await eventually(async () => {
        const found = await contactOf(channel.channelId, user);
        return found.latestChatId !== first.latestChatId ? found : undefined;
      });
      expect((await awaitMessages(reopened.latestChatId, 1)).map((m) => m.text)).to.deep.equal(['after close']);
      expect((await messagesOf(first.latestChatId)).map((m) => m.text)).to.deep.equal(['before close']);
    });

    it('fetches media from the platform into the media library as the contact upload, bytes and all', async () => {
      const user = '15550002002';
      const image = chatAppA.userMedia('image/jpeg', { caption: 'my receipt' });
      await deliver([chatAppA.inboundMessage(user, 'image', image)]);
      const { contactId, latestChatId } = await contactOf(channel.channelId, user);
      const [message] = await awaitMessages(latestChatId, 1);
      expect(message?.type).to.equal(MessageType.MEDIA);
      expect(message?.text).to.equal('my receipt');
      const [stored] = message!.media;
      expect(stored).to.deep.include({ uploaderId: contactId });
      const bytes = await (await fetch(new URL(stored!.url, harness.url))).text();
      expect(bytes).to.equal(chatAppA.mediaBytes(String(image.id)));
      const library = await unary(media.listChatMedia.bind(media), { chatId: latestChatId, input: {} }, as('inbox'));
      expect(library.data.map((m) => m._id)).to.deep.equal([stored!._id]);
    });

    it('carries a location, a contact card and a button reply as such; an unsupported kind as a text saying so', async () => {
      const user = '15550002003';
      await deliver([
        chatAppA.inboundMessage(user, 'location', {
          latitude: 52.37,
          longitude: 4.89,
          name: 'Dam',
          address: 'Amsterdam',
        }),
      ]);
      const { latestChatId } = await contactOf(channel.channelId, user);
      await awaitMessages(latestChatId, 1);
      await deliver([
        chatAppA.inboundMessage(user, 'contacts', [
          {
            name: { formatted_name: 'Ann Lee' },
            phones: [{ phone: '+31612345678' }],
            emails: [{ email: 'ann@example.com' }],
          },
        ]),
      ]);
      await awaitMessages(latestChatId, 2);
      await deliver([
        chatAppA.inboundMessage(user, 'interactive', {
          type: 'button_reply',
          button_reply: { id: 'yes-1', title: 'Yes' },
        }),
      ]);
      await awaitMessages(latestChatId, 3);
      await deliver([chatAppA.inboundMessage(user, 'unsupported', undefined)]);
      const [location, card, reply, unsupported] = await awaitMessages(latestChatId, 4);
      expect(location).to.deep.include({ type: MessageType.LOCATION });
      expect(location?.location).to.deep.include({ latitude: 52.37, longitude: 4.89, name: 'Dam' });
      expect(card).to.deep.include({ type: MessageType.CONTACT_CARD });
      expect(card?.contactCard).to.deep.include({ name: 'Ann Lee', phone: '+31612345678', email: 'ann@example.com' });
      expect(reply).to.deep.include({ type: MessageType.BUTTONS, text: 'Yes' });
      expect(reply?.buttons.map((b) => [b.id, b.title])).to.deep.equal([['yes-1', 'Yes']]);
      expect(unsupported?.type).to.equal(MessageType.TEXT);
      expect(unsupported?.text).to.match(/^\[Unsupported message: .+\]$/);
    });

    it('refuses a bad signature with 401 and stores nothing', async () => {
      const user = '15550002004';
      const body = JSON.stringify(
        chatAppA.messagesWebhook(account, { messages: [chatAppA.inboundMessage(user, 'text', { body: 'forged' })] }),
      );
      const forged = await fetch(channel.url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
      });
      expect(forged.status).to.equal(401);
      // A genuine message from the same user after it: the only one recorded.
      await deliver([chatAppA.inboundMessage(user, 'text', { body: 'genuine' })]);
      const { latestChatId } = await contactOf(channel.channelId, user);
      expect((await awaitMessages(latestChatId, 1)).map((m) => m.text)).to.deep.equal(['genuine']);
    });

    it('keeps recording inbound while the channel is paused (decisions 0120, 0139)', async () => {
      const user = '15550002007';
      dataOf(await harness.graphql(PAUSE, { id: channel.channelId }, key));
      try {
        expect((await deliver([chatAppA.inboundMessage(user, 'text', { body: 'while paused' })])).status).to.equal(200);
        const { latestChatId } = await contactOf(channel.channelId, user);
        expect((await awaitMessages(latestChatId, 1)).map((m) => m.text)).to.deep.equal(['while paused']);
      } finally {
        dataOf(await harness.graphql(RESUME, { id: channel.channelId }, key));
      }
    });

    it('answers 404 for an unknown channel and a disconnected one', async () => {
      const body = chatAppA.messagesWebhook(account, {
        messages: [chatAppA.inboundMessage('15550002005', 'text', { body: 'nobody home' })],
      });
      expect((await chatAppA.deliver(inboundUrl(newId()), account, body)).status).to.equal(404);
      const otherAccount = chatAppA.account();
      const other = await connect('CHAT_APP_A', FakeChatAppA.credentials(otherAccount));
      dataOf(await harness.graphql(DISCONNECT, { id: other.channelId }, key));
      expect((await chatAppA.deliver(other.url, otherAccount, body)).status).to.equal(404);
    });
  });

  describe('SOCIAL_APP_D (Messenger shape)', () => {
    let page: SocialAppDPage;
    let channel: { channelId: string; webhookSecret: string; url: string };
    before(async () => {
      page = socialAppD.page();
      channel = await connect('SOCIAL_APP_D', FakeSocialAppD.credentials(page));
    });
    const deliver = (events: Record<string, unknown>[]) =>
      socialAppD.deliver(channel.url, page, socialAppD.webhook(page, events));

    it('creates contact, chat and message once; a redelivery adds nothing; a postback is a button reply', async () => {
      const psid = '7000000000000001';
      const text = socialAppD.text(page, psid, 'Hi page');
      expect((await deliver([text])).status).to.equal(200);
      const { latestChatId } = await contactOf(channel.channelId, psid);
      await awaitMessages(latestChatId, 1);
      await deliver([text]);
      await deliver([socialAppD.postback(page, psid, 'Order status', 'ORDER_STATUS')]);
      const all = await awaitMessages(latestChatId, 2);
      expect(all.map((m) => [m.type, m.text])).to.deep.equal([
        [MessageType.TEXT, 'Hi page'],
        [MessageType.BUTTONS, 'Order status'],
      ]);
      expect(all[1]?.buttons.map((b) => b.id)).to.deep.equal(['ORDER_STATUS']);
    });

    it('fetches an attachment from the platform CDN into the media library', async () => {
      const psid = '7000000000000002';
      const url = socialAppD.userFile('application/pdf');
      await deliver([
        socialAppD.event(page, psid, {
          message: { mid: `m_${newId()}`, attachments: [{ type: 'file', payload: { url } }] },
        }),
      ]);
      const { latestChatId } = await contactOf(channel.channelId, psid);
      const [message] = await awaitMessages(latestChatId, 1);
      expect(message?.type).to.equal(MessageType.MEDIA);
      const bytes = await (await fetch(new URL(message!.media[0]!.url, harness.url))).text();
      expect(bytes).to.equal(socialAppD.fileBytes(url));
    });
  });

  describe('CHAT_APP_B (Telegram Bot API shape)', () => {
    let bot: FakeBot;
    let channel: { channelId: string; webhookSecret: string; url: string };
    before(async () => {
      bot = chatAppB.addBot();
      channel = await connect('CHAT_APP_B', { botToken: bot.token });
    });

    it('creates contact, chat and message once; a redelivered update adds nothing', async () => {
      const user = chatAppB.user({ first_name: 'Tele', last_name: 'User' });
      const update = chatAppB.textUpdate(bot, user, 'Hello bot');
      expect((await chatAppB.deliverUpdate(bot, update)).status).to.equal(200);
      const { latestChatId } = await contactOf(channel.channelId, String(user.id));
      await awaitMessages(latestChatId, 1);
      await chatAppB.deliverUpdate(bot, update);
      await chatAppB.deliverUpdate(bot, chatAppB.textUpdate(bot, user, 'again'));
      expect((await awaitMessages(latestChatId, 2)).map((m) => m.text)).to.deep.equal(['Hello bot', 'again']);
    });

    it('fetches a document through getFile into the media library', async () => {
      const user = chatAppB.user();
      const fileId = chatAppB.addFile(bot, 'telegram-file-bytes', 'application/pdf', 'invoice.pdf');
      await chatAppB.deliverUpdate(
        bot,
        chatAppB.messageUpdate(bot, user, {
          document: { file_id: fileId, file_unique_id: 'u1', file_name: 'invoice.pdf', mime_type: 'application/pdf' },
          caption: 'the invoice',
        }),
      );
      const { latestChatId } = await contactOf(channel.channelId, String(user.id));
      const [message] = await awaitMessages(latestChatId, 1);
      expect(message).to.deep.include({ type: MessageType.MEDIA, text: 'the invoice' });
      const bytes = await (await fetch(new URL(message!.media[0]!.url, harness.url))).text();
      expect(bytes).to.equal('telegram-file-bytes');
    });

    it('refuses a wrong or missing secret token with 401 and stores nothing', async () => {
      const user = chatAppB.user();
      expect(
        (await chatAppB.deliverUpdate(bot, chatAppB.textUpdate(bot, user, 'forged'), { secretToken: 'guess' })).status,
      ).to.equal(401);
      expect(
        (await chatAppB.deliverUpdate(bot, chatAppB.textUpdate(bot, user, 'forged'), { secretToken: null })).status,
      ).to.equal(401);
      await chatAppB.deliverUpdate(bot, chatAppB.textUpdate(bot, user, 'genuine'));
      const { latestChatId } = await contactOf(channel.channelId, String(user.id));
      expect((await awaitMessages(latestChatId, 1)).map((m) => m.text)).to.deep.equal(['genuine']);
    });
  });

  describe('CHAT_APP_C (Viber REST bot API shape)', () => {
    let account: FakeViberAccount;
    let channel: { channelId: string; webhookSecret: string; url: string };
    before(async () => {
      account = chatAppC.addAccount();
      channel = await connect('CHAT_APP_C', { authToken: account.authToken });
    });

    it("answers set_webhook's signed `event: webhook` check with 200", () => {
      expect(chatAppC.webhookChecks.filter((check) => check.url === channel.url)).to.deep.equal([
        { url: channel.url, status: 200 },
      ]);
    });

    it('creates contact, chat and message once; a redelivered callback adds nothing; a picture is fetched', async () => {
      const user = chatAppC.user({ name: 'Viber User' });
      const text = chatAppC.textCallback(user, 'Hi Viber');
      expect((await chatAppC.deliverCallback(account, text)).status).to.equal(200);
      const { latestChatId } = await contactOf(channel.channelId, user.id);
      await awaitMessages(latestChatId, 1);
      await chatAppC.deliverCallback(account, text);
      const picture = chatAppC.mediaUrl(`${newId()}.jpg`);
      await chatAppC.deliverCallback(
        account,
        chatAppC.messageCallback(user, { type: 'picture', media: picture, text: 'a photo', file_name: 'photo.jpg' }),
      );
      const [first, media] = await awaitMessages(latestChatId, 2);
      expect(first?.text).to.equal('Hi Viber');
      expect(media).to.deep.include({ type: MessageType.MEDIA });
      const bytes = await (await fetch(new URL(media!.media[0]!.url, harness.url))).text();
      expect(bytes).to.equal(`viber-media:${picture.split('/').pop()}`);
    });

    it('refuses a bad signature with 401 and stores nothing', async () => {
      const user = chatAppC.user();
      const forged = await chatAppC.deliverCallback(account, chatAppC.textCallback(user, 'forged'), {
        signature: '0'.repeat(64),
      });
      expect(forged.status).to.equal(401);
      await chatAppC.deliverCallback(account, chatAppC.textCallback(user, 'genuine'));
      const { latestChatId } = await contactOf(channel.channelId, user.id);
      expect((await awaitMessages(latestChatId, 1)).map((m) => m.text)).to.deep.equal(['genuine']);
    });
  });
});
