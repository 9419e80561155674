import { hkdfSync } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT, decodeJwt } from 'jose';
import { ALL_SCOPES, ApiScope } from '@svc/kit';
import { ConnectStateRow } from '@svc/channels/dist/src/entities';
import { FakeChatAppA } from '../fakes/chat-app-a';
import { telegramError } from '../fakes/chat-app-b';
import { FakeSocialAppD } from '../fakes/social-app-d';
import type { GraphQLResponse, TestOrg } from '../support/stack-harness';
import {
  CONNECT_A,
  CONNECT_B,
  CONNECT_C,
  CONNECT_D,
  CONNECT_URL,
  LIST,
  PlatformStack,
  type ChannelView,
} from './channels-platform-fixtures';
import { dataOf, expectError } from './inbox-fixtures';

type Errors = GraphQLResponse['body']['errors'];
const fieldOf = (errors: Errors) => errors?.[0]?.extensions?.field;

describe('Channels: connecting messaging platforms through GraphQL (fake platforms)', function () {
  const platforms = new PlatformStack();
  let org: TestOrg;
  let key: string;
  const gql = <T = Record<string, unknown>>(query: string, variables: Record<string, unknown> = {}, as = key) =>
    platforms.harness.graphql<T>(query, variables, as);
  const list = async (as = key) => dataOf(await gql<{ channels: ChannelView[] }>(LIST, {}, as)).channels;
  const connectB = async (botToken: string, extra: Record<string, unknown> = {}, as = key) =>
    gql<{ connectChatAppBChannel: ChannelView }>(CONNECT_B, { i: { botToken, ...extra } }, as);

  before(async () => {
    await platforms.start();
    org = await platforms.harness.newOrg('Connect');
    key = (await org.mintKey([ApiScope.CHANNELS_MANAGE])).key;
  });
  after(() => platforms.stop());

  describe('CHAT_APP_B (bot token)', () => {
    it('checks the token at the platform, registers the webhook with a generated secret, answers no secret', async () => {
      const bot = platforms.b.addBot();
      const response = await connectB(bot.token, { name: 'Support bot', aiAutoReply: true });
      const channel = dataOf(response).connectChatAppBChannel;
      expect(channel).to.include({
        type: 'CHAT_APP_B',
        status: 'ACTIVE',
        name: 'Support bot',
        accountDisplayName: `@${bot.username}`,
        accountId: String(bot.id),
        aiAutoReply: true,
        authorizationError: '',
      });
      expect(JSON.stringify(response.body)).not.to.contain(bot.token.split(':')[1]);
      expect(platforms.b.calls(bot, 'getMe')).to.have.length(1);
      expect(bot.webhook?.url).to.equal(platforms.inboundUrl(channel.id));
      expect(bot.webhook?.secretToken).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(JSON.stringify(response.body)).not.to.contain(bot.webhook?.secretToken);
      // The registered secret is the one the inbound route checks: the platform's delivery is accepted, a wrong one not.
      const update = platforms.b.textUpdate(bot, platforms.b.user(), 'hello');
      expect((await platforms.b.deliverUpdate(bot, update)).status).to.equal(200);
      expect((await platforms.b.deliverUpdate(bot, update, { secretToken: 'wrong' })).status).to.equal(401);
      expect((await list()).map((c) => c.id)).to.include(channel.id);
    });

    it('names the bot by its @username by default', async () => {
      const bot = platforms.b.addBot();
      expect(dataOf(await connectB(bot.token)).connectChatAppBChannel.name).to.equal(`@${bot.username}`);
    });

    it('a token the platform refuses is BAD_USER_INPUT on botToken with the platform’s words; nothing is stored', async () => {
      const before = await list();
      const bot = platforms.b.addBot();
      platforms.b.bots.delete(bot.token); // revoked at @BotFather
      const response = await connectB(bot.token);
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(fieldOf(response.body.errors)).to.equal('botToken');
      expect(response.body.errors?.[0]?.message).to.match(/^botToken: refused by the platform: .*Unauthorized/);
      expect(await list()).to.deep.equal(before);
    });

    it('a malformed token is BAD_USER_INPUT before any platform call', async () => {
      const calls = platforms.b.requests.length;
      const response = await connectB('not-a-token');
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(fieldOf(response.body.errors)).to.equal('botToken');
      expect(platforms.b.requests.length).to.equal(calls);
    });

    it('a platform that is down is UNAVAILABLE; a refused webhook registration leaves nothing behind', async () => {
      const bot = platforms.b.addBot();
      platforms.b.failNext((r) => r.path.endsWith('/getMe'), { status: 502, body: { ok: false } });
      expectError(await connectB(bot.token), 200, 'UNAVAILABLE');
      const before = await list();
      platforms.b.failNext((r) => r.path.endsWith('/setWebhook'), telegramError(400, 'Bad Request: bad webhook'));
      expectError(await connectB(bot.token), 200, 'FAILED_PRECONDITION');
      expect(await list()).to.deep.equal(before);
      // Nothing holds the account: it connects once the platform takes the webhook.
      expect(dataOf(await connectB(bot.token)).connectChatAppBChannel.status).to.equal('ACTIVE');
    });

    it('the same bot twice is CONFLICT, in this org and in another; the first keeps its webhook', async () => {
      const bot = platforms.b.addBot();
      const first = dataOf(await connectB(bot.token)).connectChatAppBChannel;
      const secret = bot.webhook?.secretToken;
      const again = await connectB(bot.token);
      expectError(again, 200, 'CONFLICT');
      expect(again.body.errors?.[0]?.message).to.contain(first.id);
      const other = await platforms.harness.newOrg('Other connect');
      const otherKey = (await other.mintKey([ApiScope.CHANNELS_MANAGE])).key;
      const theirs = await connectB(bot.token, {}, otherKey);
      expectError(theirs, 200, 'CONFLICT');
      expect(theirs.body.errors?.[0]?.message).not.to.contain(first.id);
      expect(bot.webhook).to.deep.include({ url: platforms.inboundUrl(first.id), secretToken: secret });
      expect(await list(otherKey)).to.deep.equal([]);
    });

    it('bad input: name empty or too long, each naming the field', async () => {
      const bot = platforms.b.addBot();
      for (const name of ['  ', 'x'.repeat(101)]) {
        const response = await connectB(bot.token, { name });
        expectError(response, 200, 'BAD_USER_INPUT');
        expect(fieldOf(response.body.errors)).to.equal('name');
      }
    });
  });

  describe('CHAT_APP_C (bot token)', () => {
    it('checks the token, sets the webhook (the platform’s signed check reaches our route), answers no token', async () => {
      const account = platforms.c.addAccount('Acme Viber');
      const response = await gql<{ connectChatAppCChannel: ChannelView }>(CONNECT_C, {
        i: { authToken: account.authToken },
      });
      const channel = dataOf(response).connectChatAppCChannel;
      expect(channel).to.include({ type: 'CHAT_APP_C', status: 'ACTIVE', name: 'Acme Viber', accountId: account.id });
      expect(JSON.stringify(response.body)).not.to.contain(account.authToken);
      expect(account.webhook?.url).to.equal(platforms.inboundUrl(channel.id));
      expect(platforms.c.webhookChecks.at(-1)).to.deep.equal({ url: platforms.inboundUrl(channel.id), status: 200 });
    });

    it('a token the platform refuses is BAD_USER_INPUT on authToken', async () => {
      const response = await gql(CONNECT_C, { i: { authToken: '445da6az1s345z78-dazcczb2542zv51a-e0vc5fva17480im9' } });
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(fieldOf(response.body.errors)).to.equal('authToken');
      expect(response.body.errors?.[0]?.message).to.match(/refused by the platform/);
    });
  });

  describe('CHAT_APP_A (own credentials)', () => {
    it('checks the number and the app secret, subscribes the webhook with a verify token that the handshake echoes', async () => {
      const account = platforms.a.account();
      const response = await gql<{ connectChatAppAChannel: ChannelView }>(CONNECT_A, {
        i: FakeChatAppA.credentials(account),
      });
      const channel = dataOf(response).connectChatAppAChannel;
      expect(channel).to.include({
        type: 'CHAT_APP_A',
        status: 'ACTIVE',
        accountId: account.phoneNumberId,
        accountDisplayName: account.displayPhoneNumber,
        name: account.displayPhoneNumber,
      });
      for (const secret of [account.accessToken, account.appSecret])
        expect(JSON.stringify(response.body)).not.to.contain(secret);
      expect(account.subscription?.overrideCallbackUri).to.equal(platforms.inboundUrl(channel.id));
      const verifyToken = account.subscription?.verifyToken ?? '';
      const check = await platforms.a.verifyCallback(platforms.inboundUrl(channel.id), verifyToken);
      expect([check.status, check.text]).to.deep.equal([200, check.challenge]);
    });

    it('a wrong app secret or a number of another account is refused, naming the field', async () => {
      const account = platforms.a.account();
      const wrongSecret = await gql(CONNECT_A, {
        i: { ...FakeChatAppA.credentials(account), appSecret: 'f'.repeat(32) },
      });
      expectError(wrongSecret, 200, 'BAD_USER_INPUT');
      expect(wrongSecret.body.errors?.[0]?.message).to.match(/^appSecret: refused by the platform/);
      expect(fieldOf(wrongSecret.body.errors)).to.equal('appSecret');
      const stranger = platforms.a.account();
      const foreignNumber = await gql(CONNECT_A, {
        i: { ...FakeChatAppA.credentials(account), phoneNumberId: stranger.phoneNumberId },
      });
      expectError(foreignNumber, 200, 'BAD_USER_INPUT');
      const malformed = await gql(CONNECT_A, { i: { ...FakeChatAppA.credentials(account), phoneNumberId: 'abc' } });
      expectError(malformed, 200, 'BAD_USER_INPUT');
      expect(fieldOf(malformed.body.errors)).to.equal('phoneNumberId');
      expect(account.subscription).to.equal(undefined);
    });
  });

  describe('SOCIAL_APP_D (own credentials)', () => {
    it('checks the page token, subscribes the page and the app webhook', async () => {
      const page = platforms.d.page();
      const response = await gql<{ connectSocialAppDChannel: ChannelView }>(CONNECT_D, {
        i: FakeSocialAppD.credentials(page),
      });
      const channel = dataOf(response).connectSocialAppDChannel;
      expect(channel).to.include({ type: 'SOCIAL_APP_D', status: 'ACTIVE', accountId: page.pageId, name: page.name });
      for (const secret of [page.pageAccessToken, page.appSecret])
        expect(JSON.stringify(response.body)).not.to.contain(secret);
      expect(page.subscribedFields).to.be.a('string');
      expect(page.appSubscription?.callbackUrl).to.equal(platforms.inboundUrl(channel.id));
    });

    it('a page token the platform refuses is BAD_USER_INPUT on pageAccessToken', async () => {
      const page = platforms.d.page();
      const response = await gql(CONNECT_D, {
        i: { ...FakeSocialAppD.credentials(page), pageAccessToken: `EAA${'x'.repeat(40)}` },
      });
      expectError(response, 200, 'BAD_USER_INPUT');
      expect(fieldOf(response.body.errors)).to.equal('pageAccessToken');
    });
  });

  describe('hosted connect (partnerChannelConnectUrl → the platform dialog → /channels/connect/callback)', () => {
    const connectUrl = async (input: Record<string, unknown>, as = key) =>
      gql<{ partnerChannelConnectUrl: { url: string; expiresAt: string } }>(CONNECT_URL, { i: input }, as);
    /** The browser: opens the dialog (the fake consents and redirects back), answers the callback's URL. */
    const throughDialog = async (url: string): Promise<string> => {
      const dialog = await fetch(url, { redirect: 'manual' });
      expect(dialog.status).to.equal(302);
      return dialog.headers.get('location') ?? '';
    };
    const open = (url: string) => fetch(url, { redirect: 'manual' });
    const stateOf = (url: string) => new URL(url).searchParams.get('state') ?? '';

    it('CHAT_APP_A: the dialog URL carries our app, callback and a signed state; the callback connects the number', async () => {
      const account = platforms.a.account();
      platforms.a.consentAs(account);
      const { url, expiresAt } = dataOf(
        await connectUrl({ type: 'CHAT_APP_A', name: 'Sales line', aiAutoReply: true }),
      ).partnerChannelConnectUrl;
      const dialog = new URL(url);
      expect(`${dialog.origin}${dialog.pathname}`).to.equal(platforms.a.dialogUrl);
      expect(dialog.searchParams.get('client_id')).to.equal(platforms.a.app.appId);
      expect(dialog.searchParams.get('redirect_uri')).to.equal(`${platforms.harness.url}/channels/connect/callback`);
      expect(decodeJwt(stateOf(url))).to.include({ kind: 'CHAT_APP_A', org: org.id });
      expect(Date.parse(expiresAt)).to.be.greaterThan(Date.now());
      const callback = await throughDialog(url);
      const done = await open(callback);
      expect(done.status).to.equal(200);
      expect(await done.text()).to.contain('Sales line is connected');
      const channel = (await list()).find((c) => c.accountId === account.phoneNumberId);
      expect(channel).to.include({ type: 'CHAT_APP_A', name: 'Sales line', aiAutoReply: true, status: 'ACTIVE' });
      expect(account.subscription?.overrideCallbackUri).to.equal(platforms.inboundUrl(channel!.id));
      // Replayed: the state is good once.
      const replay = await open(callback);
      expect(replay.status).to.equal(400);
      expect(await replay.text()).to.contain('already used');
    });

    it('SOCIAL_APP_D: connects the page and sends the browser to the return URL with the channel id', async () => {
      const page = platforms.d.page();
      platforms.d.consentAs(page);
      const { url } = dataOf(
        await connectUrl({ type: 'SOCIAL_APP_D', returnUrl: 'https://app.example.com/channels?tab=1' }),
      ).partnerChannelConnectUrl;
      const done = await open(await throughDialog(url));
      expect(done.status).to.equal(303);
      const back = new URL(done.headers.get('location') ?? '');
      expect(`${back.origin}${back.pathname}`).to.equal('https://app.example.com/channels');
      const channel = (await list()).find((c) => c.accountId === page.pageId);
      expect(back.searchParams.get('channelId')).to.equal(channel?.id);
      expect(back.searchParams.get('tab')).to.equal('1');
      // The page token kept is the long-lived one: read through the user token made long-lived (fb_exchange_token),
      // not the short-lived page token the login's own user token would give.
      const exchanges = platforms.d.received('GET', /^\/oauth\/access_token$/).map((r) => r.query.get('grant_type'));
      expect(exchanges.slice(-2)).to.deep.equal([null, 'fb_exchange_token']);
      const subscribe = platforms.d.received('POST', new RegExp(`^/${page.pageId}/subscribed_apps$`));
      expect(subscribe.map((r) => r.headers.authorization)).to.deep.equal([`Bearer ${page.pageAccessToken}`]);
    });

    it('refuses a tampered, forged or expired state, and a declined dialog, connecting nothing', async () => {
      const account = platforms.a.account();
      platforms.a.consentAs(account);
      const { url } = dataOf(await connectUrl({ type: 'CHAT_APP_A' })).partnerChannelConnectUrl;
      const callback = new URL(await throughDialog(url));
      const state = callback.searchParams.get('state') ?? '';
      const claims = decodeJwt(state);
      const withState = (value: string) => {
        const next = new URL(callback);
        next.searchParams.set('state', value);
        return next.toString();
      };
      const [header, , signature] = state.split('.');
      const otherOrg = Buffer.from(JSON.stringify({ ...claims, org: 'f'.repeat(24) })).toString('base64url');
      const key = hkdfSync('sha256', platforms.a.app.appSecret, '', 'svc-channels hosted connect state CHAT_APP_A', 32);
      const expired = await new SignJWT({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new Uint8Array(key));
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32));
      for (const [bad, words] of [
        [`${header}.${otherOrg}.${signature}`, 'not one this service made'],
        [forged, 'not one this service made'],
        ['garbage', 'not one this service made'],
        [expired, 'expired'],
      ] as const) {
        const answer = await open(withState(bad));
        expect(answer.status, words).to.equal(400);
        expect(await answer.text()).to.contain(words);
      }
      const noState = await open(`${platforms.harness.url}/channels/connect/callback?code=x`);
      expect(noState.status).to.equal(400);
      expect((await list()).some((c) => c.accountId === account.phoneNumberId)).to.equal(false);
      // The genuine state still works once (none of the refusals used it up).
      expect((await open(callback.toString())).status).to.equal(200);

      const declined = dataOf(await connectUrl({ type: 'CHAT_APP_A' })).partnerChannelConnectUrl;
      const declinedCallback = new URL(await throughDialog(declined.url));
      declinedCallback.searchParams.delete('code');
      declinedCallback.searchParams.set('error', 'access_denied');
      const answer = await open(declinedCallback.toString());
      expect(answer.status).to.equal(400);
      expect(await answer.text()).to.contain('declined');
    });

    it('refuses a state whose stored row expired, even while its token has not, and says so on the return URL', async () => {
      const account = platforms.a.account();
      platforms.a.consentAs(account);
      const { url } = dataOf(
        await connectUrl({ type: 'CHAT_APP_A', returnUrl: 'https://app.example.com/done' }),
      ).partnerChannelConnectUrl;
      const callback = await throughDialog(url);
      await platforms.harness.stack.channels.dataSource
        .getRepository(ConnectStateRow)
        .update({ id: String(decodeJwt(stateOf(url)).jti) }, { expiresAt: new Date(Date.now() - 1000) });
      const answer = await open(callback);
      expect(answer.status).to.equal(303);
      const back = new URL(answer.headers.get('location') ?? '');
      expect(back.searchParams.get('error')).to.equal('state_expired');
      expect((await list()).some((c) => c.accountId === account.phoneNumberId)).to.equal(false);
    });

    it('bad input: a type without a hosted connect, an unsafe return URL, each naming the field', async () => {
      for (const [input, field] of [
        [{ type: 'CHAT_APP_A', returnUrl: 'http://app.example.com/' }, 'returnUrl'],
        [{ type: 'CHAT_APP_A', returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
        [{ type: 'SOCIAL_APP_D', name: '' }, 'name'],
      ] as const) {
        const response = await connectUrl(input);
        expectError(response, 200, 'BAD_USER_INPUT');
        expect(fieldOf(response.body.errors), JSON.stringify(input)).to.equal(field);
      }
      // The public enum lists only the kinds with a hosted connect.
      expectError(await connectUrl({ type: 'CHAT_APP_B' }), 200, 'BAD_USER_INPUT');
    });
  });

  it('refuses a key without CHANNELS_MANAGE on every connect operation, naming the scope', async () => {
    const without = (
      await org.mintKey(ALL_SCOPES.filter((s) => s !== ApiScope.CHANNELS_MANAGE && s !== ApiScope.PARTNER_ADMIN))
    ).key;
    const bot = platforms.b.addBot();
    const account = platforms.a.account();
    const page = platforms.d.page();
    for (const [query, variables] of [
      [CONNECT_B, { i: { botToken: bot.token } }],
      [CONNECT_C, { i: { authToken: platforms.c.addAccount().authToken } }],
      [CONNECT_A, { i: FakeChatAppA.credentials(account) }],
      [CONNECT_D, { i: FakeSocialAppD.credentials(page) }],
      [CONNECT_URL, { i: { type: 'CHAT_APP_A' } }],
    ] as const) {
      const response = await gql(query, variables, without);
      expectError(response, 403, 'FORBIDDEN');
      expect(response.body.errors?.[0]?.extensions?.scope, query).to.equal(ApiScope.CHANNELS_MANAGE);
    }
    expect(platforms.b.calls(bot, 'getMe')).to.deep.equal([]);
  });
});
