import { expect } from 'chai';
import type { BrowserContext, Frame } from 'playwright-core';
import { StackHarness } from '../support/stack-harness';
import { WidgetFixtures, userHash } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { hostHtml, widgetFrame } from './loader-fixture';
import { until } from './widget-support';

/**
 * `window.svcSettings` through loader.js into the real svc-widget in its iframe: `config` (the element boots with it
 * and fetches nothing; a malformed one is ignored), `prefill` and `user` (sent as svc:prefill:v1 / svc:identify:v1).
 */
describe('loader.js svcSettings reach the svc-widget in its frame (Chromium)', function () {
  const harness = new StackHarness();
  const browser = new BrowserHarness();
  const host = new HostPage();
  let publicKey: string;
  let secret: string;
  let serverConfig: Record<string, unknown>;
  let context: BrowserContext;

  before(async function () {
    this.timeout(180_000);
    await Promise.all([harness.start(), browser.start(), host.start()]);
    const org = await harness.newOrg('Loader settings');
    const created = await new WidgetFixtures(harness, org).integration({
      allowedOrigins: { origins: [host.origin] },
      branding: { teamName: 'Server team' },
      prechatForm: {
        enabled: true,
        name: { asked: true, required: true },
        email: { asked: true, required: false },
        phone: { asked: false, required: false },
      },
    });
    publicKey = created.integration.publicKey;
    secret = created.secret;
    const response = await fetch(`${harness.url}/api/web/config/${publicKey}`, { headers: { origin: host.origin } });
    serverConfig = (await response.json()) as Record<string, unknown>;
  });

  beforeEach(async () => {
    context = await browser.context();
  });

  afterEach(() => context.close());

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
  });

  /** The shop page with loader.js and these settings; every path the page or its frame asks for is recorded. */
  async function visit(settings: unknown, early?: unknown[][]) {
    const page = await context.newPage();
    const paths: string[] = [];
    const handshakes: { identified: boolean }[] = [];
    page.on('request', (request) => paths.push(new URL(request.url()).pathname));
    page.on('response', async (response) => {
      if (/\/visitor\/start-(anonymous|identified)$/.test(response.url()) && response.ok()) {
        handshakes.push((await response.json()) as { identified: boolean });
      }
    });
    const url = host.page(
      `/settings-${Math.random().toString(36).slice(2)}.html`,
      hostHtml({
        loaderUrl: `${harness.url}/widget/loader.js`,
        attributes: { 'data-public-key': publicKey },
        settings,
        early,
      }),
    );
    await page.goto(url);
    const frame = await widgetFrame(page);
    await launcher(frame).waitFor();
    return { page, frame, paths, handshakes };
  }

  const launcher = (frame: Frame) => frame.getByRole('button', { name: /open chat/i });
  const configRequests = (paths: string[]) => paths.filter((path) => path.startsWith('/api/web/config/'));

  it('boots the widget with svcSettings.config and asks the server for no config', async () => {
    const config = {
      ...serverConfig,
      branding: { ...(serverConfig.branding as object), teamName: 'Injected team', greeting: 'Hello from the page' },
    };
    const { frame, paths } = await visit({ config });
    await launcher(frame).click();
    await frame.getByRole('heading', { name: 'Injected team' }).waitFor();
    expect(await frame.getByText('Hello from the page').count()).to.equal(1);
    expect(configRequests(paths)).to.deep.equal([]);
  });

  it('ignores a malformed svcSettings.config and shows the server config', async () => {
    // The loader takes it (it only reads status and branding) and skips the gate; the widget must not.
    const { frame, paths } = await visit({ config: { publicKey, branding: { teamName: 'Broken team' } } });
    await launcher(frame).click();
    await frame.getByRole('heading', { name: 'Server team' }).waitFor();
    expect(configRequests(paths)).to.deep.equal([`/api/web/config/${publicKey}`]);
  });

  it('ignores a svcSettings.config of another integration', async () => {
    const config = { ...serverConfig, publicKey: 'wk_other', branding: { teamName: 'Other team' } };
    const { frame, paths } = await visit({ config });
    await launcher(frame).click();
    await frame.getByRole('heading', { name: 'Server team' }).waitFor();
    expect(configRequests(paths)).to.deep.equal([`/api/web/config/${publicKey}`]);
  });

  it("fills the prechat form from svcSettings.prefill and a later Svc('prefill'), each adding to the other", async () => {
    const { frame } = await visit({ prefill: { name: 'Ada' } }, [['prefill', { email: 'ada@example.com' }]]);
    await launcher(frame).click();
    const name = frame.getByRole('textbox', { name: /^Name/ });
    await until(async () => expect(await name.inputValue()).to.equal('Ada'));
    expect(await frame.getByRole('textbox', { name: /^Email/ }).inputValue()).to.equal('ada@example.com');
  });

  it('identifies the visitor from svcSettings.user at boot', async () => {
    const { handshakes } = await visit({
      user: { userId: 'user-settings', userHash: userHash(secret, 'user-settings') },
    });
    await until(() => expect(handshakes.map((handshake) => handshake.identified)).to.deep.equal([true]));
  });
});
