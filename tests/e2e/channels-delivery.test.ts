import { expect } from 'chai';
import { ApiScope, grpcClient, newId, systemPrincipal, unary } from '@svc/kit';
import { InboxServiceClient } from '@svc/proto/inbox/v1';
import { StackHarness, type TestOrg } from '../support/stack-harness';

/** Outbound delivery to the messaging platforms (issue 16): the window refusal, the sender, retryFailedMessage. */
describe('Channels delivery (whole stack over HTTP)', function () {
  const harness = new StackHarness();
  let org: TestOrg;
  let key = '';
  let inbox: InboxServiceClient;

  before(async () => {
    await harness.start();
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
    org = await harness.newOrg('Delivery');
    key = (await org.mintKey([ApiScope.MESSAGES_SEND, ApiScope.MESSAGES_READ])).key;
  });
  after(async () => {
    inbox.close();
    await harness.stop();
  });

  const asSystem = (orgId: string) => harness.stack.signer.metadata(systemPrincipal(orgId), 'inbox');

  /** A chat on a platform channel kind, as channels' inbound consumer opens it. */
  async function platformChat(channelType: string, channelId = newId()): Promise<string> {
    const chat = await unary(
      inbox.openChat.bind(inbox),
      { channelId, contact: { _id: newId(), name: 'Platform user' }, channelType },
      asSystem(org.id),
    );
    return chat._id;
  }

  const sendMessage = (chatId: string, text: string) =>
    harness.graphql<{ sendMessage: { _id: string; deliveryStatus: string } }>(
      'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id deliveryStatus } }',
      { c: chatId, i: { text } },
      key,
    );

  describe('the messaging window (decision 0140)', () => {
    it('refuses a free-form sendMessage on a CHAT_APP_A or SOCIAL_APP_D chat the contact has not written to in 24 hours', async () => {
      for (const type of ['CHAT_APP_A', 'SOCIAL_APP_D']) {
        const refused = await sendMessage(await platformChat(type), 'hello?');
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
      expect((await sendMessage(chatId, 'how can we help?')).body.data?.sendMessage.deliveryStatus).to.equal('QUEUED');
      const telegram = await platformChat('CHAT_APP_B');
      expect((await sendMessage(telegram, 'hello')).body.data?.sendMessage.deliveryStatus).to.equal('QUEUED');
    });
  });
});
