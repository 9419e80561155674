import { expect } from 'chai';
import {
  ApiScope,
  eventually,
  grpcClient,
  newId,
  testSigner,
  testTrustEnv,
  testTrustKeys,
  systemPrincipal,
  unary,
} from '@svc/kit';
import { ChannelType } from '@svc/proto/channels/v1';
import { InboxServiceClient, type Message } from '@svc/proto/inbox/v1';
import { FakeChatAppB, type FakeBot } from '../fakes/chat-app-b';
import { chatOfPlatformUser, connectDirectly } from '../support/platform-channels';
import { startDeployable, type DeployableProcess } from '../support/deployable-process';
import { StackHarness } from '../support/stack-harness';

const USERS = 6;
const MESSAGES = 180;
/** Sends the fake answers on time; past them it answers late until the channels process is killed. */
const KILL_AT = 60;
/** The channels process's platform timeout: a send unanswered this long is retried (the adapters call it transient). */
const PLATFORM_TIMEOUT_MS = 1_000;
/**
 * How late the fake answers the sends past KILL_AT until the kill: well under the platform timeout, so no send is
 * timed out and sent again, and long enough that the sends under way when the kill lands are still unanswered.
 */
const HOLD_MS = PLATFORM_TIMEOUT_MS / 2;

/**
 * Exactly-once delivery across a crash (issue 16, decision 0141), on the real Kafka (`npm run test:infra`): the
 * delivery consumer and sender run in a channels deployable of their own, which is killed (SIGKILL) mid-batch and
 * started again on the same database and topics. At the fake platform every message arrives exactly once, except an
 * attempt in doubt (claimed, no answer recorded when the process died), which arrives at most once and is visible:
 * FAILED with the in-doubt reason, never sent again on its own.
 */
describe('Channels delivery: the channels process killed mid-batch (Kafka)', function () {
  if (!process.env.SVC_TEST_KAFKA_BROKERS) {
    it('runs on Kafka only (npm run test:infra)');
    return;
  }
  this.timeout(240_000);
  const fake = new FakeChatAppB();
  let harness: StackHarness;
  let bot: FakeBot;
  let inbox: InboxServiceClient;

  before(async () => {
    await fake.start();
    harness = new StackHarness(
      {},
      // The test process's trust keys: the channels process it starts signs with them.
      { SVC_TRUST_KEYS: JSON.stringify(testTrustKeys()) },
      { platformUrls: { CHAT_APP_B_API_URL: fake.url } },
    );
    await harness.start();
    // The stack's own channels keeps receiving webhooks; only the process below sends.
    await harness.stack.channels.stopDelivery();
    inbox = grpcClient(InboxServiceClient, `127.0.0.1:${harness.stack.inbox.grpcPort}`);
  });
  after(async () => {
    inbox.close();
    await harness.stop();
    await fake.stop();
  });

  it('sends every message exactly once, an attempt in doubt at most once and FAILED as such', async () => {
    const org = await harness.newOrg('Crash');
    const key = (await org.mintKey([ApiScope.MESSAGES_SEND])).key;
    bot = fake.addBot();
    const channel = await connectDirectly(harness, org.id, ChannelType.CHAT_APP_B, { botToken: bot.token });
    const as = (audience: string) => testSigner('channels').metadata(systemPrincipal(org.id), audience);
    const chats: string[] = [];
    for (let i = 0; i < USERS; i += 1) {
      const user = fake.user();
      await fake.deliverUpdate(bot, fake.textUpdate(bot, user, 'hello'));
      const found = await chatOfPlatformUser(harness, org.id, channel.channelId, String(user.id));
      chats.push(found);
    }

    const run = `crash-${newId()}`;
    const sent: { chatId: string; id: string; text: string }[] = [];
    for (let i = 0; i < MESSAGES; i += 1) {
      const chatId = chats[i % USERS] ?? '';
      const text = `${run} #${i}`;
      const answer = await harness.graphql<{ sendMessage: { _id: string } }>(
        'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
        { c: chatId, i: { text } },
        key,
      );
      sent.push({ chatId, id: answer.body.data?.sendMessage._id ?? '', text });
    }
    const arrivals = (text: string) => fake.calls(bot, 'sendMessage').filter((c) => c['text'] === text).length;
    const arrived = () => fake.calls(bot, 'sendMessage').filter((c) => String(c['text']).startsWith(run)).length;

    // Past KILL_AT the fake answers late until the kill, so the kill lands mid-stream on any machine (the backlog is
    // otherwise sent within a poll or two) with the sends under way unanswered: attempts in doubt.
    let holding = true;
    fake.slowDown((r) => holding && r.path.endsWith('/sendMessage') && arrived() > KILL_AT, HOLD_MS);
    let channels = await startChannelsProcess(harness, fake.url);
    await eventually(async () => arrived() > KILL_AT, 60_000, `more than ${KILL_AT} sends at the fake`);
    await channels.kill();
    holding = false;
    const atKill = arrived();
    expect(atKill, 'sends at the fake when the process was killed').to.be.below(MESSAGES);
    channels = await startChannelsProcess(harness, fake.url);
    try {
      const messages = await eventually(
        async () => {
          const all: Message[] = [];
          for (const chatId of chats) {
            const page = await unary(inbox.getMessages.bind(inbox), { chatId, input: { limit: 100 } }, as('inbox'));
            all.push(...page.data.filter((m) => m.text.startsWith(run)));
          }
          const settled = all.filter((m) => m.deliveryStatus === 'SENT' || m.deliveryStatus === 'FAILED');
          return settled.length === MESSAGES && all;
        },
        120_000,
        'every message SENT or FAILED',
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the channels process said:\n${channels.output().slice(-3_000)}`);
      });
      const byId = new Map(messages.map((m) => [m._id, m]));
      const sentTwice = sent.filter((m) => arrivals(m.text) > 1);
      const notSent = sent.filter((m) => byId.get(m.id)?.deliveryStatus === 'SENT' && arrivals(m.text) !== 1);
      const failed = sent.filter((m) => byId.get(m.id)?.deliveryStatus === 'FAILED');
      const notInDoubt = failed.filter((m) => !/in_doubt/.test(byId.get(m.id)?.failureReason ?? ''));
      console.log(
        `      kill -9 of the channels process: ${MESSAGES} messages, ${atKill} at the fake at the kill, ` +
          `${failed.length} in doubt (${failed.filter((m) => arrivals(m.text) === 1).length} of them had arrived), ` +
          `${sentTwice.length} sent twice`,
      );
      expect(sentTwice, 'messages the fake received twice').to.deep.equal([]);
      expect(notSent, 'SENT messages the fake did not receive exactly once').to.deep.equal([]);
      expect(notInDoubt, 'FAILED for another reason than an attempt in doubt').to.deep.equal([]);
      // Only attempts running when the process died can be in doubt: at most the sender's concurrency.
      expect(failed.length).to.be.at.most(8);
    } finally {
      await channels.stop();
    }
  });
});

/** channels' deployable on the stack's channels database and Kafka topics, sending to the fake. */
function startChannelsProcess(harness: StackHarness, fakeUrl: string): Promise<DeployableProcess> {
  const config = harness.stack.channels.config;
  return startDeployable('channels', {
    LOG_LEVEL: 'info',
    DB_URL: config.DB_URL,
    DB_MIGRATE: 'skip',
    KAFKA_BROKERS: process.env.SVC_TEST_KAFKA_BROKERS ?? '',
    KAFKA_TOPIC_PREFIX: config.KAFKA_TOPIC_PREFIX,
    // The killed process's consumers leave their groups 6 s after the kill (the broker's minimum), not 30 s: the
    // restarted process's join waits that long.
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    ...testTrustEnv('channels'),
    CHANNELS_SECRETS_KEY_FILE: config.CHANNELS_SECRETS_KEY_FILE ?? '',
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: '0',
    HTTP_PORT: '0',
    INBOX_GRPC_URL: `127.0.0.1:${harness.stack.inbox.grpcPort}`,
    CONTACTS_GRPC_URL: `127.0.0.1:${harness.stack.contacts.grpcPort}`,
    CHAT_APP_B_API_URL: fakeUrl,
    // An attempt the kill cut short is declared in doubt after 3 s, so the test need not wait the default.
    PLATFORM_TIMEOUT_MS: String(PLATFORM_TIMEOUT_MS),
    DELIVERY_LEASE_MS: '3000',
    DELIVERY_POLL_MS: '100',
  });
}
