import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { answerCommands, demoEnvPath, seedDemo } from '@svc/stack';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { FakeGoogle, WidgetFixtures, siteJwt, userHash } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { hostHtml, widgetFrame } from './loader-fixture';
import { until } from './widget-support';

const run = promisify(execFile);
const GOOGLE_CLIENT = 'shop.apps.googleusercontent.com';

interface Handshake {
  identified: boolean;
  chat: { _id: string };
}

/**
 * loader.js with the real widget (widget-stencil/dist/widget, as `npm run build` assembles it) in its iframe: the
 * identity proofs and shutdown through `Svc()`, the frame document's policy, and /demo of the embedded stack.
 */
describe('loader.js with the svc-widget frame (Chromium)', function () {
  const google = new FakeGoogle();
  const env: NodeJS.ProcessEnv = {};
  const harness = new StackHarness(env, { SVC_SEED_DEMO: 'true' });
  const browser = new BrowserHarness();
  const host = new HostPage();
  let org: TestOrg;
  let publicKey: string;
  let secret: string;
  let context: BrowserContext;

  before(async function () {
    this.timeout(180_000);
    env.WIDGET_GOOGLE_JWKS_URL = await google.start();
    await Promise.all([harness.start(), browser.start(), host.start()]);
    org = await harness.newOrg('Loader widget');
    const created = await new WidgetFixtures(harness, org).integration({
      allowedOrigins: { origins: [host.origin] },
      security: { googleClientId: GOOGLE_CLIENT },
    });
    publicKey = created.integration.publicKey;
    secret = created.secret;
  });

  beforeEach(async () => {
    context = await browser.context();
  });

  afterEach(() => context.close());

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
    await google.stop();
  });

  /** A page that embeds the widget with loader.js; handshakes (from the frame) and policy violations are collected. */
  async function visit(url: string) {
    const page = await context.newPage();
    const handshakes: Handshake[] = [];
    const calls: string[] = [];
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    page.on('request', (request) => {
      if (request.url().includes('/api/web/visitor/')) calls.push(new URL(request.url()).pathname);
    });
    page.on('response', async (response) => {
      if (/\/visitor\/(start-anonymous|start-identified)$/.test(response.url()) && response.ok()) {
        handshakes.push((await response.json()) as Handshake);
      }
    });
    await page.goto(url);
    const frame = await widgetFrame(page);
    await launcher(frame).waitFor();
    return { page, frame, handshakes, calls, violations };
  }

  const launcher = (frame: Frame) => frame.getByRole('button', { name: /open chat/i });
  const svc = (page: Page, action: string, argument?: unknown) =>
    page.evaluate(
      ([a, b]) => (window as unknown as { Svc(action: string, argument?: unknown): void }).Svc(a as string, b),
      [action, argument] as const,
    );
  const shopPage = () =>
    host.page(
      `/shop-${Math.random().toString(36).slice(2)}.html`,
      hostHtml({ loaderUrl: `${harness.url}/widget/loader.js`, attributes: { 'data-public-key': publicKey } }),
    );

  const proofs: { name: string; user: () => Promise<Record<string, string>> }[] = [
    { name: 'a jwt', user: async () => ({ jwt: await siteJwt(secret, { name: 'Jo Jwt' }, { sub: 'user-jwt' }) }) },
    { name: 'userId + userHash', user: async () => ({ userId: 'user-hash', userHash: userHash(secret, 'user-hash') }) },
    {
      name: 'a Google ID token',
      user: async () => ({ googleIdToken: await google.idToken(GOOGLE_CLIENT, { sub: 'google-user' }) }),
    },
  ];
  for (const proof of proofs) {
    it(`Svc('identify') with ${proof.name} starts an identified session; Svc('shutdown') then a fresh anonymous one`, async () => {
      const { page, handshakes, calls, violations } = await visit(shopPage());
      await svc(page, 'identify', await proof.user());
      await until(() => expect(handshakes.at(-1)?.identified).to.equal(true));
      const identifiedChat = handshakes.at(-1)?.chat._id;
      await svc(page, 'shutdown');
      await until(() => expect(calls).to.include('/api/web/visitor/end'));
      await until(() => {
        expect(handshakes.at(-1)?.identified).to.equal(false);
        expect(handshakes.at(-1)?.chat._id).not.to.equal(identifiedChat);
      });
      expect(violations, 'the frame document policy lets the widget run').to.deep.equal([]);
    });
  }

  it('/demo embeds the demo integration, and the commands it shows answer the visitor live', async () => {
    const demo = await seedDemo(harness.stack);
    // The demo integration allows the stack's own URL (http://localhost:<port>), where a new user opens it.
    const { page, frame, violations } = await visit(`${harness.stack.url}/demo`);
    expect(await page.getByRole('heading', { name: 'Widget demo' }).count()).to.equal(1);
    await launcher(frame).click();
    await frame.getByRole('textbox', { name: 'Message' }).fill('Is anyone there?');
    await page.keyboard.press('Enter');
    const conversation = frame.getByRole('log', { name: 'Conversation' });
    await conversation
      .locator('article.mine', { hasText: 'Is anyone there?' })
      .getByRole('img', { name: 'Sent' })
      .waitFor();
    // Not spawnSync: the stack answering curl runs in this process.
    const answered = await run('bash', ['-c', answerCommands(demoEnvPath(harness.stack.config.SVC_DATA_DIR))]);
    expect(answered.stdout, `with the key ${demo.SVC_DEMO_API_KEY.slice(0, 8)}…`).to.match(
      /"sendMessage":\{"_id":"[0-9a-f]{24}"\}/,
    );
    await conversation.locator('article', { hasText: 'Hello from the team!' }).waitFor();
    expect(violations).to.deep.equal([]);
  });
});
