import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { serveWidget, until } from './widget-support';

interface Envelope {
  version: number;
  type: string;
  payload?: unknown;
}

/**
 * widget.js in a frame document (`<svc-widget frame>`, demo mode) on its own origin, inside a page on another: the
 * frame glue maps the element's events to the v1 messages and the loader's messages to the element.
 */
describe('svc-widget frame glue (Chromium, frame and page on two origins)', function () {
  const browser = new BrowserHarness();
  const site = new HostPage();
  const cdn = new HostPage();
  let context: BrowserContext | undefined;

  before(async function () {
    this.timeout(120_000);
    await Promise.all([browser.start(), site.start(), cdn.start()]);
    serveWidget(cdn);
    cdn.page(
      '/frame.html',
      '<!doctype html><html><head><meta charset="utf-8"><title>Chat</title></head>' +
        '<body><svc-widget frame></svc-widget><script type="module" src="/widget/widget.js"></script></body></html>',
    );
  });

  after(async () => {
    await context?.close();
    await browser.stop();
    await site.stop();
    await cdn.stop();
  });

  async function embed(): Promise<Page> {
    context = await browser.context();
    const page = await context.newPage();
    const url = site.page(
      '/embed.html',
      `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title><script>
  window.received = [];
  window.addEventListener('message', (event) => {
    if (event.origin === ${JSON.stringify(cdn.origin)}) window.received.push(event.data);
  });
</script></head><body><iframe id="widget" title="Chat" style="width:400px;height:700px;border:0"
  src="${cdn.origin}/frame.html#host=${encodeURIComponent(site.origin)}&hideAttribution=1"></iframe></body></html>`,
    );
    await page.goto(url);
    return page;
  }

  const received = (page: Page) =>
    page.evaluate(() => (window as unknown as { received: Envelope[] }).received.map((m) => ({ ...m })));

  it('announces ready and its size, reports open, close and resize, and obeys svc:shutdown:v1', async () => {
    const page = await embed();
    await until(async () =>
      expect(await received(page)).to.deep.equal([
        { version: 1, type: 'svc:widget:ready:v1' },
        { version: 1, type: 'svc:widget:resize:v1', payload: { width: 64, height: 64 } },
      ]),
    );
    const frame = page.frameLocator('#widget');
    await frame.getByRole('button', { name: /open chat/i }).click();
    await frame.getByRole('dialog').waitFor();
    expect(await frame.getByText('Powered by svc-inbox').count()).to.equal(0);
    await until(async () =>
      expect((await received(page)).slice(2)).to.deep.equal([
        { version: 1, type: 'svc:widget:open:v1' },
        { version: 1, type: 'svc:widget:resize:v1', payload: { width: 380, height: 640 } },
      ]),
    );
    await page.evaluate((origin) => {
      const frameWindow = (document.getElementById('widget') as HTMLIFrameElement).contentWindow;
      frameWindow?.postMessage({ version: 1, type: 'svc:shutdown:v1' }, origin);
    }, cdn.origin);
    await frame.getByRole('dialog').waitFor({ state: 'detached' });
    await until(async () =>
      expect((await received(page)).slice(4)).to.deep.equal([
        { version: 1, type: 'svc:widget:close:v1' },
        { version: 1, type: 'svc:widget:resize:v1', payload: { width: 64, height: 64 } },
      ]),
    );
  });
});
