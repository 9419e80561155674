import { expect } from 'chai';
import { ApiScope } from '@svc/proto/common/v1';
import { PrincipalSigner, eventually, grpcClient, importSigningKey, systemPrincipal, unary } from '@svc/kit';
import { ContactsServiceClient, IdentifierType } from '@svc/proto/contacts/v1';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import type { ChatAppAAccount } from '../fakes/chat-app-a';
import type { SocialAppDPage } from '../fakes/social-app-d';
import type { TestOrg } from '../support/stack-harness';
import { CONNECT_URL, LIST, PlatformStack, type ChannelView } from './channels-platform-fixtures';
import { dataOf } from './inbox-fixtures';

const A_TOKEN = 'app-verify-token-chat-app-a';
const D_TOKEN = 'app-verify-token-social-app-d';

/**
 * The installation app's webhooks (decision 0146): hosted-connected channels share the app's one callback, split by
 * account to each channel.
 */
describe("Channels: the installation app's webhook endpoint (fake platforms, whole stack)", function () {
  const platforms = new PlatformStack();
  let org: TestOrg;
  let key: string;
  let signer: PrincipalSigner;
  let contacts: ContactsServiceClient;
  let inbox: InboxServiceClient;
  const appUrl = (segment: string) => `${platforms.harness.url}/channels/in/app/${segment}`;

  before(async () => {
    await platforms.start({ CHAT_APP_A_WEBHOOK_VERIFY_TOKEN: A_TOKEN, SOCIAL_APP_D_WEBHOOK_VERIFY_TOKEN: D_TOKEN });
    const { harness } = platforms;
    org = await harness.newOrg('App webhooks');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    signer = new PrincipalSigner(
      'channels',
      importSigningKey('channels', JSON.stringify(harness.stack.trustKeys.signing.channels)),
    );
    contacts = grpcClient(ContactsServiceClient, `127.0.0.1:${harness.stack.contacts.grpcPort}`);
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
  });
  after(async () => {
    contacts?.close();
    inbox?.close();
    await platforms.stop();
  });

  const as = (audience: string) => signer.metadata(systemPrincipal(org.id), audience);

  /** Through partnerChannelConnectUrl, the fake's dialog and our callback: the channel of `accountId`. */
  async function hostedConnect(type: 'CHAT_APP_A' | 'SOCIAL_APP_D', accountId: string): Promise<string> {
    const { url } = dataOf(
      await platforms.harness.graphql<{ partnerChannelConnectUrl: { url: string } }>(CONNECT_URL, { i: { type } }, key),
    ).partnerChannelConnectUrl;
    const dialog = await fetch(url, { redirect: 'manual' });
    const done = await fetch(dialog.headers.get('location') ?? '', { redirect: 'manual' });
    expect(done.status, await done.clone().text()).to.equal(200);
    const channels = dataOf(await platforms.harness.graphql<{ channels: ChannelView[] }>(LIST, {}, key)).channels;
    const channel = channels.find((c) => c.accountId === accountId);
    expect(channel, `channel of ${accountId}`).to.not.equal(undefined);
    return channel!.id;
  }

  /** The texts of the latest chat of `platformUserId` on `channelId`, once `count` are there. */
  async function textsOf(channelId: string, platformUserId: string, count: number): Promise<string[]> {
    const contact = await eventually(async () => {
      const found = await unary(
        contacts.lookupContact.bind(contacts),
        { identifierType: IdentifierType.CHANNEL_USER_ID, value: platformUserId, channelIntegrationId: channelId },
        as('contacts'),
      );
      return found.found && found.latestChatId ? found : undefined;
    });
    const read = async () =>
      (await unary(inbox.getMessages.bind(inbox), { chatId: contact.latestChatId, input: { limit: 100 } }, as('inbox')))
        .data;
    await eventually(async () => (await read()).length >= count);
    return (await read()).map((m) => m.text);
  }

  async function droppedCount(kind: string): Promise<number> {
    const text = await (await fetch(`${platforms.harness.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`svc_channels_app_webhook_dropped_total{kind="${kind}"}`));
    return line ? Number(line.split(' ').pop()) : 0;
  }

  describe('CHAT_APP_A: two numbers of one business account', () => {
    let first: ChatAppAAccount;
    let second: ChatAppAAccount;
    const channelIds: string[] = [];
    const a = () => platforms.a;

    before(async () => {
      first = a().account();
      second = a().account({ businessAccountId: first.businessAccountId });
      a().consentAs(first);
      channelIds.push(await hostedConnect('CHAT_APP_A', first.phoneNumberId));
      // Signed up again (the fake's token is one number's): the business account's first number not yet connected.
      a().consentAs(second);
      channelIds.push(await hostedConnect('CHAT_APP_A', second.phoneNumberId));
    });

    it("subscribes without a per-channel override: the app's own callback serves both", () => {
      expect(first.subscription).to.deep.equal({ overrideCallbackUri: undefined, verifyToken: undefined });
      expect(second.subscription).to.deep.equal({ overrideCallbackUri: undefined, verifyToken: undefined });
    });

    it('answers the hub.* handshake with the installation verify token only', async () => {
      const ok = await a().verifyCallback(appUrl('chat-app-a'), A_TOKEN);
      expect([ok.status, ok.text]).to.deep.equal([200, ok.challenge]);
      expect((await a().verifyCallback(appUrl('chat-app-a'), 'guess')).status).to.equal(403);
      expect((await a().verifyCallback(appUrl('no-such-app'), A_TOKEN)).status).to.equal(404);
    });

    it("splits one webhook with entries for both numbers: each reaches its own channel's chat once", async () => {
      // Different users: one phone is one contact of the org, whose latest chat would be either channel's.
      const user = '447700900111';
      const other = '447700900112';
      const one = a().messagesWebhook(first, {
        messages: [a().inboundMessage(user, 'text', { body: 'to the first' })],
      });
      const two = a().messagesWebhook(second, {
        messages: [a().inboundMessage(other, 'text', { body: 'to the second' })],
      });
      const body = { object: 'whatsapp_business_account', entry: [...(one.entry as []), ...(two.entry as [])] };
      const answer = await a().deliver(appUrl('chat-app-a'), first, body);
      expect(answer.status).to.equal(200);
      expect(await textsOf(channelIds[0]!, user, 1)).to.deep.equal(['to the first']);
      expect(await textsOf(channelIds[1]!, other, 1)).to.deep.equal(['to the second']);
      // Redelivered: nothing more (each channel's consumer deduplicates by the platform message id).
      expect((await a().deliver(appUrl('chat-app-a'), first, body)).status).to.equal(200);
      const later = a().messagesWebhook(first, { messages: [a().inboundMessage(user, 'text', { body: 'again' })] });
      await a().deliver(appUrl('chat-app-a'), first, later);
      expect(await textsOf(channelIds[0]!, user, 2)).to.deep.equal(['to the first', 'again']);
      expect(await textsOf(channelIds[1]!, other, 1)).to.deep.equal(['to the second']);
    });

    it('refuses a body not signed with the app secret with 401, storing nothing', async () => {
      const user = '447700900222';
      const forged = a().messagesWebhook(first, { messages: [a().inboundMessage(user, 'text', { body: 'forged' })] });
      const stranger = { ...first, appSecret: 'f'.repeat(32) };
      expect((await a().deliver(appUrl('chat-app-a'), stranger, forged)).status).to.equal(401);
      const genuine = a().messagesWebhook(first, { messages: [a().inboundMessage(user, 'text', { body: 'genuine' })] });
      await a().deliver(appUrl('chat-app-a'), first, genuine);
      expect(await textsOf(channelIds[0]!, user, 1)).to.deep.equal(['genuine']);
    });

    it('drops and counts an entry for a number no channel has, answering 200', async () => {
      const before = await droppedCount('CHAT_APP_A');
      const unknown = a().account();
      const body = a().messagesWebhook(unknown, {
        messages: [a().inboundMessage('447700900333', 'text', { body: 'x' })],
      });
      expect((await a().deliver(appUrl('chat-app-a'), unknown, body)).status).to.equal(200);
      expect(await droppedCount('CHAT_APP_A')).to.equal(before + 1);
    });
  });

  describe('SOCIAL_APP_D: two pages', () => {
    let pages: SocialAppDPage[];
    const channelIds: string[] = [];
    const d = () => platforms.d;

    before(async () => {
      pages = [d().page(), d().page()];
      for (const page of pages) {
        d().consentAs(page);
        channelIds.push(await hostedConnect('SOCIAL_APP_D', page.pageId));
      }
    });

    it("points the app's one callback at the app-level endpoint with the installation token", () => {
      for (const page of pages)
        expect(page.appSubscription).to.include({ callbackUrl: appUrl('social-app-d'), verifyToken: D_TOKEN });
    });

    it('delivers each page entry of one webhook to its own channel once; unknown pages are dropped and counted', async () => {
      const before = await droppedCount('SOCIAL_APP_D');
      const psid = '7100000000000001';
      const stranger = d().page();
      const entries = [...pages, stranger].map(
        (page, i) => (d().webhook(page, [d().text(page, psid, `page ${i}`)]).entry as unknown[])[0],
      );
      const answer = await d().deliver(appUrl('social-app-d'), pages[0]!, { object: 'page', entry: entries });
      expect(answer.status).to.equal(200);
      expect(await textsOf(channelIds[0]!, psid, 1)).to.deep.equal(['page 0']);
      expect(await textsOf(channelIds[1]!, psid, 1)).to.deep.equal(['page 1']);
      expect(await droppedCount('SOCIAL_APP_D')).to.equal(before + 1);
      const ok = await d().verifyCallback(appUrl('social-app-d'), D_TOKEN);
      expect(ok.status).to.equal(200);
    });
  });
});
