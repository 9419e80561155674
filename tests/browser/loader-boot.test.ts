import * as fs from 'node:fs';
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { ChannelStatus } from '@svc/proto/channels/v1';
import { StackHarness, type TestOrg } from '../support/stack-harness';
import { WidgetFixtures } from '../support/widget';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import { frameStyle, hostHtml, probeWidgetDir, received, widgetFrame, widgetSends } from './loader-fixture';

/**
 * loader.js in Chromium against the embedded stack, the customer's page on another origin; the frame runs a probe
 * widget.js (loader-fixture.ts) so what crosses the wire is observed on both sides.
 */
describe('loader.js (data attributes, svcSettings, Svc(), gate, frame, protocol)', function () {
  const widgetDir = probeWidgetDir();
  const harness = new StackHarness({}, { SVC_WIDGET_DIR: widgetDir });
  const browser = new BrowserHarness();
  const host = new HostPage();
  let fixtures: WidgetFixtures;
  let org: TestOrg;
  let context: BrowserContext;
  let page: Page;
  let publicKey: string;

  before(async function () {
    this.timeout(120_000);
    await Promise.all([harness.start(), browser.start(), host.start()]);
    org = await harness.newOrg('Loader');
    fixtures = new WidgetFixtures(harness, org);
    publicKey = (await fixtures.integration({ allowedOrigins: { origins: [host.origin] } })).integration.publicKey;
  });

  beforeEach(async () => {
    context = await browser.context();
    page = await context.newPage();
  });

  afterEach(() => context.close());

  after(async () => {
    await browser.stop();
    await host.stop();
    await harness.stop();
    fs.rmSync(widgetDir, { recursive: true, force: true });
  });

  const loaderUrl = () => `${harness.url}/widget/loader.js`;
  const open = (html: string) => page.goto(host.page(`/p${Math.random().toString(36).slice(2)}.html`, html));
  const fragment = async () => {
    const src = await page.$eval('iframe[title="Chat"]', (element) => (element as HTMLIFrameElement).src);
    const url = new URL(src);
    return { frame: url.origin + url.pathname, facts: Object.fromEntries(new URLSearchParams(url.hash.slice(1))) };
  };

  describe('boot', () => {
    it('mounts the frame document of its own origin, telling it the page origin and language (defaults)', async () => {
      await open(hostHtml({ loaderUrl: loaderUrl(), attributes: { 'data-public-key': publicKey }, lang: 'pt-BR' }));
      await widgetFrame(page);
      expect(await fragment()).to.deep.equal({
        frame: `${harness.url}/api/web/frame/${publicKey}`,
        facts: { host: host.origin, api: harness.url, locale: 'pt-BR' },
      });
    });

    it('takes data-api over where it was loaded from, and data-hide-attribution', async () => {
      // The same stack under another name: loader.js from localhost, the API on 127.0.0.1.
      const elsewhere = loaderUrl().replace('127.0.0.1', 'localhost');
      await open(
        hostHtml({
          loaderUrl: elsewhere,
          attributes: { 'data-public-key': publicKey, 'data-api': `${harness.url}/`, 'data-hide-attribution': '' },
        }),
      );
      await widgetFrame(page);
      expect((await fragment()).facts).to.deep.include({ api: harness.url, hideAttribution: '1' });
    });

    it("defaults data-api to data-origin's origin", async () => {
      const elsewhere = loaderUrl().replace('127.0.0.1', 'localhost');
      await open(
        hostHtml({ loaderUrl: elsewhere, attributes: { 'data-public-key': publicKey, 'data-origin': harness.url } }),
      );
      await widgetFrame(page);
      expect((await fragment()).frame).to.equal(`${harness.url}/api/web/frame/${publicKey}`);
    });

    it('replays svcSettings, then the calls queued by the stub snippet, in order, once the widget is ready', async () => {
      await open(
        hostHtml({
          loaderUrl: loaderUrl(),
          attributes: { 'data-public-key': publicKey },
          settings: { user: { userId: 'u-1', userHash: 'h' }, prefill: { name: 'Ada' } },
          early: [['prefill', { email: 'ada@example.com' }], ['shutdown'], ['identify', { jwt: 'a.b.c' }]],
        }),
      );
      const frame = await widgetFrame(page);
      await frame.waitForFunction(() => (window as unknown as { svcReceived: unknown[] }).svcReceived.length === 5);
      expect(await received(frame)).to.deep.equal([
        { version: 1, type: 'svc:identify:v1', payload: { user: { userId: 'u-1', userHash: 'h' } } },
        { version: 1, type: 'svc:prefill:v1', payload: { prefill: { name: 'Ada' } } },
        { version: 1, type: 'svc:prefill:v1', payload: { prefill: { email: 'ada@example.com' } } },
        { version: 1, type: 'svc:shutdown:v1' },
        { version: 1, type: 'svc:identify:v1', payload: { user: { jwt: 'a.b.c' } } },
      ]);
    });

    it('passes svcSettings.config in the fragment and skips the gate, placing the frame on the left when it says so', async () => {
      const gates: string[] = [];
      page.on('request', (request) => request.url().includes('view=gate') && gates.push(request.url()));
      const config = { publicKey, status: 'ACTIVE', branding: { hidden: false, launcherPosition: 'BOTTOM_LEFT' } };
      await open(
        hostHtml({ loaderUrl: loaderUrl(), attributes: { 'data-public-key': publicKey }, settings: { config } }),
      );
      await widgetFrame(page);
      expect(JSON.parse((await fragment()).facts.config ?? '')).to.deep.equal(config);
      expect(await page.$eval('iframe[title="Chat"]', (e) => (e as HTMLElement).style.left)).to.equal('0px');
      expect(gates).to.deep.equal([]);
    });
  });

  describe('gate', () => {
    /** Loads the page and waits for the loader's gate answer and what it did with it. */
    async function mountedAfterGate(key: string, settings?: unknown): Promise<number> {
      // Answered, or refused by CORS (a failed request): either way the loader has its answer.
      const isGate = (request: { url(): string }) => request.url().includes('view=gate');
      const waiters = settings
        ? []
        : [page.waitForResponse((response) => isGate(response)), page.waitForEvent('requestfailed', isGate)].map(
            (waiter) => waiter.catch(() => undefined),
          );
      const gate = settings ? undefined : Promise.race(waiters);
      await open(hostHtml({ loaderUrl: loaderUrl(), attributes: { 'data-public-key': key }, settings }));
      await gate;
      // The loader mounts in the task that reads the answer: two animation frames later it has, or never will.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      return page.locator('iframe').count();
    }

    it('mounts nothing for a disabled integration (404) or a hidden one', async () => {
      const origins = { origins: [host.origin] };
      const disabled = await fixtures.integration({ allowedOrigins: origins, status: ChannelStatus.DISABLED });
      const hidden = await fixtures.integration({ allowedOrigins: origins, branding: { hidden: true } });
      expect(await mountedAfterGate(disabled.integration.publicKey)).to.equal(0);
      expect(await mountedAfterGate(hidden.integration.publicKey)).to.equal(0);
      expect(await mountedAfterGate(publicKey), 'the same page with an active one').to.equal(1);
    });

    it('mounts nothing when svcSettings.config says hidden, and nothing on a site the integration does not allow', async () => {
      const config = { status: 'ACTIVE', branding: { hidden: true, launcherPosition: 'BOTTOM_RIGHT' } };
      expect(await mountedAfterGate(publicKey, { config })).to.equal(0);
      const other = await fixtures.integration({ allowedOrigins: { origins: ['https://elsewhere.example.com'] } });
      expect(await mountedAfterGate(other.integration.publicKey), 'CORS refuses the gate').to.equal(0);
    });
  });

  describe('frame and protocol', () => {
    async function mounted(early: unknown[][] = []) {
      await open(hostHtml({ loaderUrl: loaderUrl(), attributes: { 'data-public-key': publicKey }, early }));
      return widgetFrame(page);
    }

    it('sizes the iframe as svc:widget:resize:v1 asks, clamped to the viewport, full-screen when open below 480 px', async () => {
      await page.setViewportSize({ width: 1024, height: 700 });
      const frame = await mounted();
      await widgetSends(frame, 'svc:widget:resize:v1', { width: 88.2, height: 88 });
      await page.waitForFunction(() => document.querySelector('iframe')?.style.width === '89px');
      expect(await frameStyle(page)).to.deep.include({ width: '89px', height: '88px' });
      await widgetSends(frame, 'svc:widget:resize:v1', { width: 400, height: 5000 });
      await page.waitForFunction(() => document.querySelector('iframe')?.style.width === '400px');
      expect(await frameStyle(page)).to.deep.include({ height: '700px' });
      await page.setViewportSize({ width: 390, height: 700 });
      await widgetSends(frame, 'svc:widget:open:v1');
      await page.waitForFunction(() => document.querySelector('iframe')?.style.width === '390px');
      expect(await frameStyle(page)).to.deep.include({ height: '700px', top: '0px' });
      await widgetSends(frame, 'svc:widget:close:v1');
      await page.waitForFunction(() => document.querySelector('iframe')?.style.top === '');
      expect(await frameStyle(page)).to.deep.include({ width: '390px' });
    });

    it('hides and shows the iframe on Svc("hide") / Svc("show"), also when called before it loaded', async () => {
      const frame = await mounted([['hide']]);
      await widgetSends(frame, 'svc:widget:resize:v1', { width: 80, height: 80 });
      await page.waitForFunction(() => document.querySelector('iframe')?.style.width === '80px');
      expect((await frameStyle(page)).display).to.equal('none');
      await page.evaluate(() => (window as unknown as { Svc(action: string): void }).Svc('show'));
      expect((await frameStyle(page)).display).to.equal('');
      await page.evaluate(() => (window as unknown as { Svc(action: string): void }).Svc('hide'));
      expect((await frameStyle(page)).display).to.equal('none');
    });

    it('carries every message type both ways, from and to exactly the other side', async () => {
      const frame = await mounted();
      for (const [type, payload] of [
        ['svc:widget:open:v1'],
        ['svc:widget:resize:v1', { width: 376, height: 620 }],
        ['svc:widget:close:v1'],
      ] as const) {
        await widgetSends(frame, type, payload);
      }
      await page.waitForFunction(() => (window as unknown as { seen: unknown[] }).seen.length === 4);
      const seen = await page.evaluate(() => (window as unknown as { seen: unknown[] }).seen);
      expect(seen).to.deep.equal([
        { origin: harness.url, data: { version: 1, type: 'svc:widget:ready:v1' } },
        { origin: harness.url, data: { version: 1, type: 'svc:widget:open:v1' } },
        {
          origin: harness.url,
          data: { version: 1, type: 'svc:widget:resize:v1', payload: { width: 376, height: 620 } },
        },
        { origin: harness.url, data: { version: 1, type: 'svc:widget:close:v1' } },
      ]);
      await page.evaluate(() => {
        const svc = (window as unknown as { Svc(action: string, argument?: unknown): void }).Svc;
        svc('identify', { googleIdToken: 'g.o.o' });
        svc('identify', null);
        svc('prefill', { phone: '+15550100' });
        svc('shutdown');
        svc('showArticle', 'art-1');
        svc('showNews');
      });
      await frame.waitForFunction(() => (window as unknown as { svcReceived: unknown[] }).svcReceived.length === 6);
      expect((await received(frame)).map((message) => [message.type, message.payload])).to.deep.equal([
        ['svc:identify:v1', { user: { googleIdToken: 'g.o.o' } }],
        ['svc:identify:v1', { user: null }],
        ['svc:prefill:v1', { prefill: { phone: '+15550100' } }],
        ['svc:shutdown:v1', undefined],
        ['svc:show-article:v1', { articleId: 'art-1' }],
        ['svc:show-news:v1', undefined],
      ]);
    });

    it('ignores a message from a foreign origin, and one from the widget origin that is not its frame', async () => {
      const frame = await mounted();
      await widgetSends(frame, 'svc:widget:resize:v1', { width: 80, height: 80 });
      await page.waitForFunction(() => document.querySelector('iframe')?.style.width === '80px');
      // The page's own server under another name is another origin; other.html is on the widget's origin.
      const foreign = host.page('/foreign.html', '<!doctype html><title>ad</title>').replace('localhost', '127.0.0.1');
      for (const src of [foreign, `${harness.url}/widget/other.html`]) {
        await page.evaluate(async (url) => {
          const iframe = document.createElement('iframe');
          iframe.src = url;
          iframe.className = 'other';
          await new Promise((resolve) => {
            iframe.onload = resolve;
            document.body.appendChild(iframe);
          });
        }, src);
      }
      const others = page.frames().filter((f) => f.url().endsWith('foreign.html') || f.url().endsWith('other.html'));
      expect(others).to.have.length(2);
      for (const other of others) {
        await other.evaluate(() => {
          const resize = { version: 1, type: 'svc:widget:resize:v1', payload: { width: 999, height: 999 } };
          window.parent.postMessage(resize, '*');
          // …and at the widget: an identify it must not take from anyone but its page.
          const widget = window.parent.frames[0];
          widget?.postMessage({ version: 1, type: 'svc:identify:v1', payload: { user: { jwt: 'x.y.z' } } }, '*');
        });
      }
      // Both foreign resizes reached the page (its recorder saw them) before this one; only this one counts.
      await page.waitForFunction(
        () =>
          (window as unknown as { seen: { data: { payload?: { width: number } } }[] }).seen.filter(
            (event) => event.data.payload?.width === 999,
          ).length === 2,
      );
      await widgetSends(frame, 'svc:widget:resize:v1', { width: 81, height: 81 });
      await page.waitForFunction(() => document.querySelector('iframe')?.style.width === '81px');
      await page.evaluate(() => (window as unknown as { Svc(action: string): void }).Svc('shutdown'));
      await frame.waitForFunction(() => (window as unknown as { svcReceived: unknown[] }).svcReceived.length === 1);
      expect((await received(frame)).map((message) => message.type)).to.deep.equal(['svc:shutdown:v1']);
    });

    it('is refused by the browser on a site the integration does not allow (frame-ancestors)', async () => {
      const other = await fixtures.integration({ allowedOrigins: { origins: ['https://elsewhere.example.com'] } });
      await open('<!doctype html><title>Not allowed</title><body></body>');
      const frameUrl = `${harness.url}/api/web/frame/${other.integration.publicKey}#host=${host.origin}`;
      const refused = page.waitForEvent('console', (message) => /frame-ancestors/.test(message.text()));
      await page.evaluate((url) => {
        const iframe = document.createElement('iframe');
        iframe.src = url;
        document.body.appendChild(iframe);
      }, frameUrl);
      await refused;
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(await frame?.evaluate(() => 'svcReceived' in window).catch(() => false)).to.equal(false);
    });
  });
});
