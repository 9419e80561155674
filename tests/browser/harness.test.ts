import { expect } from 'chai';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetFixtures } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';

/** The browser harness itself: Debian Chromium, a host page on its own origin, the stack on another. */
describe('browser harness (Chromium, cross-origin host page)', function () {
  const harness = new StackHarness();
  const browser = new BrowserHarness();
  const host = new HostPage();
  let org: TestOrg;
  let fixtures: WidgetFixtures;

  before(async function () {
    this.timeout(120_000);
    await Promise.all([harness.start(), browser.start(), host.start()]);
    org = await harness.newOrg('Browser harness');
    fixtures = new WidgetFixtures(harness, org);
  });

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
  });

  async function gateFromPage(publicKey: string): Promise<string> {
    const context = await browser.context();
    try {
      const page = await context.newPage();
      await page.goto(host.page('/gate.html', '<!doctype html><title>Shop</title><p>Shop</p>'));
      return await page.evaluate(async (url) => {
        try {
          const response = await fetch(url);
          return `${response.status} ${(await response.json()).status}`;
        } catch (error) {
          return `blocked: ${(error as Error).name}`;
        }
      }, `${harness.url}/api/web/config/${publicKey}?view=gate`);
    } finally {
      await context.close();
    }
  }

  it("reads the gate cross-origin when the page's origin is allowed, and is blocked by CORS when not", async () => {
    const allowed = await fixtures.integration({ allowedOrigins: { origins: [host.origin] } });
    const other = await fixtures.integration({ allowedOrigins: { origins: ['https://elsewhere.example.com'] } });
    expect(await gateFromPage(allowed.integration.publicKey)).to.equal('200 ACTIVE');
    expect(await gateFromPage(other.integration.publicKey)).to.equal('blocked: TypeError');
  });
});
