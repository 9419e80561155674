import { expect } from 'chai';
import type { BrowserContext, Page, Response } from 'playwright-core';
import { ApiScope } from '@svc/kit';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { FakeGoogle, WidgetFixtures, siteJwt, userHash } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { launcher, recordedEvents, seriousViolations, serveWidget, until, widgetPage } from './widget-support';

const GOOGLE_CLIENT = 'shop.apps.googleusercontent.com';

interface Handshake {
  identified: boolean;
  chat: { _id: string };
}

type Identity = Record<string, string>;

/**
 * The svc-widget element on a customer's page (`http://localhost:…`, widget files served from there as a bundler
 * would) talking to the stack on `http://127.0.0.1:…`: live chat, identity, reload, network loss.
 */
describe('svc-widget live (Chromium, element on the page, stack on another origin)', function () {
  const google = new FakeGoogle();
  const env: NodeJS.ProcessEnv = { WIDGET_SSE_HEARTBEAT_MS: '300' };
  const harness = new StackHarness(env);
  const browser = new BrowserHarness();
  const host = new HostPage();
  let org: TestOrg;
  let fixtures: WidgetFixtures;
  let publicKey: string;
  let secret: string;
  let context: BrowserContext | undefined;

  before(async function () {
    this.timeout(180_000);
    env.WIDGET_GOOGLE_JWKS_URL = await google.start();
    await Promise.all([harness.start(), browser.start(), host.start()]);
    serveWidget(host);
    org = await harness.newOrg('Widget live');
    fixtures = new WidgetFixtures(harness, org);
    const created = await fixtures.integration({
      allowedOrigins: { origins: [host.origin] },
      branding: { teamName: 'Shop team', primaryColor: '#ffd400' },
      security: { googleClientId: GOOGLE_CLIENT },
    });
    publicKey = created.integration.publicKey;
    secret = created.secret;
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
    await google.stop();
  });

  /** A fresh visitor (own browser context) on a page with the live widget; handshake answers are collected. */
  async function visit(attributes: Record<string, string> = {}, key = publicKey) {
    context = await browser.context();
    const page = await context.newPage();
    const handshakes: Handshake[] = [];
    const calls: string[] = [];
    if (process.env.DEBUG_WIDGET) {
      page.on('console', (m) => console.error('console', m.type(), m.text()));
      page.on('pageerror', (e) => console.error('pageerror', e));
      page.on('response', (r) => console.error('response', r.status(), r.request().method(), r.url()));
    }
    page.on('request', (request) => {
      if (request.url().startsWith(`${harness.url}/api/web/visitor/`)) calls.push(new URL(request.url()).pathname);
    });
    page.on('response', async (response: Response) => {
      if (/\/visitor\/(start-anonymous|start-identified|refresh)$/.test(response.url()) && response.ok()) {
        handshakes.push((await response.json()) as Handshake);
      }
    });
    const url = widgetPage(host, `/live-${Math.random().toString(36).slice(2)}.html`, {
      attributes: { 'public-key': key, api: harness.url, ...attributes },
    });
    await page.goto(url);
    await launcher(page);
    return { page, handshakes, calls, context };
  }

  const log = (page: Page) => page.getByRole('log', { name: 'Conversation' });

  async function send(page: Page, text: string) {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.keyboard.press('Enter');
    await log(page).locator('article.mine', { hasText: text }).getByRole('img', { name: 'Sent' }).waitFor();
  }

  async function agentSends(chatId: string, text: string) {
    const response = await harness.graphql<{ sendMessage: { _id: string } }>(
      'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
      { c: chatId, i: { text } },
      org.sessionToken,
    );
    if (!response.body.data) throw new Error(JSON.stringify(response.body));
  }

  const identify = (page: Page, user: Identity | null) =>
    page.evaluate(
      (value) =>
        (document.querySelector('svc-widget') as unknown as { identify(u: unknown): Promise<void> }).identify(value),
      user,
    );

  const lastChat = (handshakes: Handshake[]) => {
    const last = handshakes.at(-1);
    if (!last) throw new Error('no handshake yet');
    return last;
  };

  it('stores nothing and creates no visitor before it is opened; then chats live: the agent answers over GraphQL and the visitor sees it with the agent name', async () => {
    const { page, handshakes, calls, context: visitor } = await visit();
    expect(calls).to.deep.equal([]);
    expect(await visitor.cookies()).to.deep.equal([]);
    expect(await page.evaluate(() => localStorage.length)).to.equal(0);

    await (await launcher(page)).click();
    await send(page, 'Do you have this in blue?');
    const chatId = lastChat(handshakes).chat._id;
    expect(await page.evaluate(() => localStorage.length)).to.equal(1);
    await agentSends(chatId, 'We do, in three sizes.');
    const answer = log(page).locator('article', { hasText: 'We do, in three sizes.' });
    await answer.waitFor();
    expect(await answer.locator('.author').textContent()).to.equal('Olive Owner');
    expect(await log(page).getAttribute('aria-live')).to.equal('polite');
    // The brand colour is a light yellow: the header's text is near-black, not white (contrast ≥ 4.5:1).
    const header = page.getByRole('dialog').locator('header');
    expect(await header.evaluate((element) => getComputedStyle(element).color)).to.equal('rgb(17, 17, 17)');
  });

  it('shows the unread badge, the agent typing, an automated message under the team name, and an attachment sent', async () => {
    const { page, handshakes } = await visit();
    await (await launcher(page)).click();
    await send(page, 'Anyone there?');
    const chatId = lastChat(handshakes).chat._id;
    await page.keyboard.press('Escape');
    await agentSends(chatId, 'Yes, one moment.');
    await launcher(page, 'Open chat, 1 unread');
    expect((await recordedEvents(page)).filter((e) => e.type === 'svc:unread').at(-1)?.detail).to.deep.equal({
      count: 1,
    });
    await (await launcher(page)).click();
    await launcher(page, 'Close chat');
    await harness.graphql(
      'mutation($c: ID!) { setChatTyping(chatId: $c, typing: true) { _id } }',
      { c: chatId },
      org.sessionToken,
    );
    await page.getByRole('status').getByText('Olive Owner is typing…').waitFor();

    const key = (await org.mintKey([ApiScope.MESSAGES_SEND, ApiScope.MESSAGES_READ])).key;
    await harness.graphql(
      'mutation($c: String!, $i: CreateCombinedMessageInput!) { sendMessage(chatId: $c, input: $i) { _id } }',
      { c: chatId, i: { text: 'Your order has shipped.' } },
      key,
    );
    const automated = log(page).locator('article', { hasText: 'Your order has shipped.' });
    await automated.waitFor();
    expect(await automated.locator('.author').textContent()).to.equal('Shop team');

    const uploads: string[] = [];
    page.on('request', (request) => request.url().includes('/api/web/media') && uploads.push(request.method()));
    await page.getByLabel('Attach a file').setInputFiles({
      name: 'receipt.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('order 42, paid'),
    });
    await log(page).getByRole('link', { name: 'receipt.txt' }).waitFor();
    expect(uploads).to.deep.equal(['POST']);
  });

  it('keeps the conversation over a reload', async () => {
    const { page, handshakes } = await visit();
    await (await launcher(page)).click();
    await send(page, 'Keep this one');
    await agentSends(lastChat(handshakes).chat._id, 'Kept.');
    await log(page).getByText('Kept.').waitFor();
    await page.reload();
    await (await launcher(page)).click();
    await log(page).getByText('Keep this one').waitFor();
    await log(page).getByText('Kept.').waitFor();
    expect(await log(page).locator('article').count()).to.equal(2);
  });

  it('loads older messages when the visitor scrolls up, keeping what they were reading in place', async () => {
    const { page, handshakes } = await visit();
    await (await launcher(page)).click();
    await send(page, 'The very first message');
    const chatId = lastChat(handshakes).chat._id;
    for (let i = 1; i <= 35; i++) await agentSends(chatId, `Agent line ${i}`);
    await page.reload();
    await (await launcher(page)).click();
    await log(page).getByText('Agent line 35').waitFor();
    expect(await log(page).locator('article').count()).to.equal(30);
    await page.getByRole('button', { name: 'Load earlier messages' }).waitFor();
    // One jump to the top (as a fast flick would); the older page loads above what was shown.
    await log(page).evaluate((element) => element.scrollTo(0, 0));
    await log(page).getByText('The very first message').waitFor();
    expect(await log(page).locator('article').count()).to.equal(36);
    expect(await page.getByRole('button', { name: 'Load earlier messages' }).count()).to.equal(0);
    // Still reading near where they were, not thrown back to the top of the older page.
    await until(async () => expect(await log(page).evaluate((element) => element.scrollTop)).to.be.greaterThan(0));
  });

  it('shows the reconnect banner while the network is cut and, restored, shows what the agent sent meanwhile once', async () => {
    const { page, handshakes, context: visitor } = await visit();
    await (await launcher(page)).click();
    await send(page, 'Going into a tunnel');
    const chatId = lastChat(handshakes).chat._id;
    await visitor.setOffline(true);
    await page
      .getByRole('status')
      .filter({ hasText: /offline|Reconnecting/ })
      .waitFor();
    await agentSends(chatId, 'Sent while you were away');
    await visitor.setOffline(false);
    await log(page).getByText('Sent while you were away').waitFor({ timeout: 20_000 });
    await page
      .getByRole('status')
      .filter({ hasText: /offline|Reconnecting/ })
      .waitFor({ state: 'detached' });
    expect(await log(page).getByText('Sent while you were away').count()).to.equal(1);
    await send(page, 'Back again');
  });

  const proofs: { name: string; user: () => Promise<Identity> }[] = [
    { name: 'a jwt', user: async () => ({ jwt: await siteJwt(secret, { name: 'Jo Jwt' }, { sub: 'user-jwt' }) }) },
    { name: 'userId + userHash', user: async () => ({ userId: 'user-hash', userHash: userHash(secret, 'user-hash') }) },
    {
      name: 'a Google ID token',
      user: async () => ({ googleIdToken: await google.idToken(GOOGLE_CLIENT, { sub: 'google-user' }) }),
    },
  ];
  for (const proof of proofs) {
    it(`identify() with ${proof.name} starts an identified session; identify(null) then gives a fresh anonymous one`, async () => {
      const { page, handshakes, calls } = await visit();
      expect(await page.evaluate(() => localStorage.length)).to.equal(0);
      await identify(page, await proof.user());
      await until(async () => expect(handshakes.at(-1)?.identified).to.equal(true));
      // The page identified the visitor: from now on their session may be kept.
      await until(async () => expect(await page.evaluate(() => localStorage.length)).to.equal(1));
      await (await launcher(page)).click();
      await send(page, `Hello as ${proof.name}`);
      const identifiedChat = lastChat(handshakes).chat._id;

      await identify(page, null);
      await until(async () => expect(calls).to.include('/api/web/visitor/end'));
      await until(async () => {
        const last = lastChat(handshakes);
        expect(last.identified).to.equal(false);
        expect(last.chat._id).not.to.equal(identifiedChat);
      });
      await until(async () => expect(await log(page).locator('article').count()).to.equal(0));
    });
  }

  it('shows the prechat form from the config with the prefill applied, and starts with what it collected', async () => {
    const { integration } = await fixtures.integration({
      allowedOrigins: { origins: [host.origin] },
      prechatForm: {
        enabled: true,
        name: { asked: true, required: true },
        email: { asked: true, required: false },
        phone: { asked: false, required: false },
      },
    });
    const { page } = await visit({ 'prefill-name': 'Ada', 'prefill-email': 'ada@example.com' }, integration.publicKey);
    const started = page.waitForRequest((request) => request.url().endsWith('/visitor/start-anonymous'));
    await (await launcher(page)).click();
    const name = page.getByRole('textbox', { name: /^Name/ });
    expect(await name.inputValue()).to.equal('Ada');
    expect(await page.getByRole('textbox', { name: /^Email/ }).inputValue()).to.equal('ada@example.com');
    expect(await seriousViolations(page)).to.deep.equal([]);
    await page.getByRole('button', { name: 'Start the conversation' }).click();
    expect((await started).postDataJSON()).to.include({ name: 'Ada', email: 'ada@example.com' });
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  });

  it('shows nothing for a public key the backend does not know', async () => {
    context = await browser.context();
    const page = await context.newPage();
    const config = page.waitForResponse((response) => response.url().includes('/api/web/config/wk_unknown'));
    await page.goto(
      widgetPage(host, '/unknown.html', { attributes: { 'public-key': 'wk_unknown', api: harness.url } }),
    );
    expect((await config).status()).to.equal(404);
    await until(async () =>
      expect((await recordedEvents(page)).filter((e) => e.type === 'svc:resize').at(-1)?.detail).to.deep.equal({
        width: 0,
        height: 0,
      }),
    );
    expect(await page.getByRole('button').count()).to.equal(0);
  });

  /** An integration of the host page whose team is away now (open only tomorrow, UTC), whenever the test runs. */
  async function closedNow(away: { offlineMessage?: string; hideWhenOffline: boolean }) {
    const tomorrow = (new Date().getUTCDay() + 1) % 7 || 7;
    const { integration } = await fixtures.integration({
      allowedOrigins: { origins: [host.origin] },
      availability: {
        timeZone: 'UTC',
        businessHours: { intervals: [{ weekday: tomorrow, opens: '09:00', closes: '17:00' }] },
        ...away,
      },
    });
    return integration;
  }

  it("tells the visitor the team is away with the integration's offline message when it does not hide", async () => {
    const integration = await closedNow({ offlineMessage: 'Back tomorrow at nine.', hideWhenOffline: false });
    context = await browser.context();
    const page = await context.newPage();
    await page.goto(
      widgetPage(host, '/away.html', { attributes: { 'public-key': integration.publicKey, api: harness.url } }),
    );
    await page.getByRole('button', { name: /open chat/i }).click();
    await page.getByText('Back tomorrow at nine.').waitFor();
    // Away is not closed: the visitor can still leave a message.
    expect(await page.getByRole('textbox').count()).to.be.greaterThan(0);
  });

  it('hides itself when the team is offline and the integration hides when offline', async () => {
    const integration = await closedNow({ hideWhenOffline: true });
    context = await browser.context();
    const page = await context.newPage();
    await page.goto(
      widgetPage(host, '/hidden.html', { attributes: { 'public-key': integration.publicKey, api: harness.url } }),
    );
    await until(async () =>
      expect((await recordedEvents(page)).filter((e) => e.type === 'svc:resize').at(-1)?.detail).to.deep.equal({
        width: 0,
        height: 0,
      }),
    );
    expect(await page.getByRole('button', { name: /open chat/i }).count()).to.equal(0);
  });
});
