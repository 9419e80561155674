import { expect } from 'chai';
import { ApiScope } from '@svc/kit';
import { FakeChatAppA } from '../fakes/chat-app-a';
import type { TestOrg } from '../support/stack-harness';
import { CONNECT_B, PlatformStack, type ChannelView } from './channels-platform-fixtures';
import { dataOf } from './inbox-fixtures';

describe('Channels: connecting messaging platforms through GraphQL (fake platforms)', function () {
  const platforms = new PlatformStack();
  let org: TestOrg;
  let key: string;
  const gql = <T>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    platforms.harness.graphql<T>(query, variables, as);

  before(async () => {
    await platforms.start();
    org = await platforms.harness.newOrg('Connect');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
  });
  after(() => platforms.stop());

  it('CHAT_APP_B: checks the bot token at the platform, registers the webhook with a secret, answers no secret', async () => {
    const bot = platforms.b.addBot();
    const response = await gql<{ connectChatAppBChannel: ChannelView }>(CONNECT_B, { i: { botToken: bot.token } });
    const channel = dataOf(response).connectChatAppBChannel;
    expect(channel).to.include({
      type: 'CHAT_APP_B',
      status: 'ACTIVE',
      name: `@${bot.username}`,
      accountDisplayName: `@${bot.username}`,
      accountId: String(bot.id),
      aiAutoReply: false,
      authorizationError: '',
    });
    expect(JSON.stringify(response.body)).not.to.contain(bot.token.split(':')[1]);
    expect(bot.webhook?.url).to.equal(platforms.inboundUrl(channel.id));
    expect(bot.webhook?.secretToken).to.match(/^[A-Za-z0-9_-]{43}$/);
    void FakeChatAppA;
  });
});
