import { expect } from 'chai';
import { ApiScope, eventually } from '@svc/kit';
import { FakeChatAppA } from '../fakes/chat-app-a';
import { FakeSocialAppD } from '../fakes/social-app-d';
import { CONNECT_A, CONNECT_B, CONNECT_C, CONNECT_D, PlatformStack } from './channels-platform-fixtures';
import { dataOf } from './inbox-fixtures';

/**
 * Credentials never reach the logs (issue 16): the stack runs at LOG_LEVEL debug while a channel of each kind is
 * connected and receives a webhook, and no line written holds a credential or a webhook secret.
 */
describe('Channels: no platform credential appears in any log line (LOG_LEVEL debug)', function () {
  const platforms = new PlatformStack();
  const lines: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const level = process.env.LOG_LEVEL;

  before(async () => {
    process.env.LOG_LEVEL = 'debug';
    process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      lines.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      return (write as (chunk: string | Uint8Array, ...rest: never[]) => boolean)(chunk, ...rest);
    }) as typeof process.stdout.write;
    await platforms.start();
  });
  after(async () => {
    process.stdout.write = write;
    if (level === undefined) delete process.env.LOG_LEVEL;
    else process.env.LOG_LEVEL = level;
    await platforms.stop();
  });

  it('connects CHAT_APP_A, CHAT_APP_B, CHAT_APP_C and SOCIAL_APP_D and logs none of their secrets', async () => {
    const org = await platforms.harness.newOrg('Logs');
    const key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
    const connect = async (mutation: string, input: Record<string, string>) =>
      dataOf(await platforms.harness.graphql(mutation, { i: input }, key));
    const a = platforms.a.account();
    const bot = platforms.b.addBot();
    const viber = platforms.c.addAccount();
    const page = platforms.d.page();
    await connect(CONNECT_A, FakeChatAppA.credentials(a));
    await connect(CONNECT_B, { botToken: bot.token });
    await connect(CONNECT_C, { authToken: viber.authToken });
    await connect(CONNECT_D, FakeSocialAppD.credentials(page));
    expect(
      (await platforms.b.deliverUpdate(bot, platforms.b.textUpdate(bot, platforms.b.user(), 'hi'))).status,
    ).to.equal(200);

    const secrets = [
      a.accessToken,
      a.appSecret,
      a.subscription?.verifyToken,
      bot.token,
      bot.token.split(':')[1],
      bot.webhook?.secretToken,
      viber.authToken,
      page.pageAccessToken,
      page.appSecret,
      page.appSubscription?.verifyToken,
    ];
    expect(secrets.every(Boolean), 'every secret was used').to.equal(true);
    // The update is applied by channels' inbound consumer after the 200 (on Kafka, a while after): its debug line
    // ("inbound webhook applied") must be among the lines checked.
    await eventually(
      async () => lines.some((line) => line.includes('"service":"channels"') && line.includes('"level":20')),
      20_000,
      'the channels service logging at debug',
    );
    for (const secret of secrets) {
      const leaking = lines.filter((line) => line.includes(secret!));
      expect(leaking, `a log line holds a secret`).to.deep.equal([]);
    }
  });
});
