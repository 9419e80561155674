import { expect } from 'chai';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { BrowserHarness } from './support/chromium';
import { HostPage } from './support/host-page';
import {
  launcher,
  recordedEvents,
  screenshotDir,
  seriousViolations,
  serveWidget,
  widgetPage,
  type RecordedEvent,
} from './widget-support';

/**
 * The svc-widget element on a page, as a bundler user puts it there (www/widget.js from the host page's own origin),
 * in demo mode: no public key, so no backend at all.
 */
describe('svc-widget element (Chromium, demo mode)', function () {
  const browser = new BrowserHarness();
  const host = new HostPage();
  let context: BrowserContext | undefined;

  before(async function () {
    this.timeout(120_000);
    await Promise.all([browser.start(), host.start()]);
    serveWidget(host);
  });

  afterEach(async () => {
    await context?.close();
    context = undefined;
  });

  after(async () => {
    await browser.stop();
    await host.stop();
  });

  async function open(url: string, options: Parameters<BrowserHarness['context']>[0] = {}): Promise<Page> {
    context = await browser.context(options);
    const page = await context.newPage();
    await page.goto(url);
    return page;
  }

  const widget = (page: Page) => page.locator('svc-widget');
  const eventsOf = async (page: Page, type: string) =>
    (await recordedEvents(page)).filter((event: RecordedEvent) => event.type === type);

  it('renders a labelled sample conversation in demo mode without any request beyond its own files, storing nothing', async () => {
    context = await browser.context();
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(widgetPage(host, '/demo.html'));
    await (await launcher(page)).click();
    await expect(page.getByRole('note')).to.exist;
    const note = await page.getByRole('note').textContent();
    expect(note).to.equal('Demo: a sample conversation. Nothing is sent.');
    const log = page.getByRole('log', { name: 'Conversation' });
    await log.getByText('Do you ship to Lisbon?').waitFor();
    expect(await log.locator('article').count()).to.equal(3);
    await page.getByRole('textbox', { name: 'Message' }).fill('Hello demo');
    await page.keyboard.press('Enter');
    await log.getByText('Hello demo').waitFor();
    await page.getByRole('status').getByText('Demo team is typing…').waitFor();
    await log.locator('article').nth(4).waitFor();
    expect(requests.every((url) => url.startsWith(`${host.origin}/`))).to.equal(true, requests.join('\n'));
    expect(requests.filter((url) => !url.startsWith(`${host.origin}/widget/`))).to.deep.equal([
      `${host.origin}/demo.html`,
    ]);
    expect(await context.cookies()).to.deep.equal([]);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).to.deep.equal([0, 0]);
  });

  it('fires svc:open, svc:close and svc:resize (the wanted size) as bubbling, composed events', async () => {
    const page = await open(widgetPage(host, '/events.html'), { viewport: { width: 1280, height: 800 } });
    await (await launcher(page)).click();
    await page.getByRole('dialog').waitFor();
    // White on the default blue brand colour (the readable choice).
    const header = page.getByRole('dialog').locator('header');
    expect(await header.evaluate((element) => getComputedStyle(element).color)).to.equal('rgb(255, 255, 255)');
    await page.getByRole('button', { name: 'Close chat' }).click();
    await launcher(page);
    const events = await recordedEvents(page);
    const sequence = events.filter((event) => event.type !== 'svc:unread');
    expect(sequence).to.deep.equal([
      { type: 'svc:resize', detail: { width: 64, height: 64 }, bubbles: true, composed: true },
      { type: 'svc:open', detail: null, bubbles: true, composed: true },
      { type: 'svc:resize', detail: { width: 380, height: 640 }, bubbles: true, composed: true },
      { type: 'svc:close', detail: null, bubbles: true, composed: true },
      { type: 'svc:resize', detail: { width: 64, height: 64 }, bubbles: true, composed: true },
    ]);
    expect((await eventsOf(page, 'svc:unread'))[0]).to.deep.include({ detail: { count: 1 } });
  });

  it('keeps working after it is moved elsewhere in the page', async () => {
    const page = await open(widgetPage(host, '/moved.html'));
    await launcher(page);
    await page.evaluate(() => document.querySelector('main')?.append(document.querySelector('svc-widget') as Node));
    await (await launcher(page)).click();
    await page.getByRole('textbox', { name: 'Message' }).fill('Still here?');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('Demo team is typing…').waitFor();
  });

  it('asks for the whole viewport when opened on a small screen, and the panel fills it', async () => {
    const page = await open(widgetPage(host, '/mobile.html'), {
      viewport: { width: 390, height: 700 },
      reducedMotion: 'reduce',
    });
    await page.evaluate(() => (document.querySelector('svc-widget') as unknown as { open(): Promise<void> }).open());
    await page.getByRole('dialog').waitFor();
    expect((await eventsOf(page, 'svc:resize')).at(-1)?.detail).to.deep.equal({ width: 390, height: 700 });
    expect(await page.getByRole('dialog').boundingBox()).to.deep.equal({ x: 0, y: 0, width: 390, height: 700 });
    const fontSize = await page
      .getByRole('textbox', { name: 'Message' })
      .evaluate((input) => parseFloat(getComputedStyle(input).fontSize));
    expect(fontSize).to.be.at.least(16);
  });

  it('works by keyboard alone: Tab to the launcher, Enter opens, focus stays in the panel, Escape closes and returns focus', async () => {
    const page = await open(widgetPage(host, '/keyboard.html'));
    await launcher(page);
    const focused = () =>
      page.evaluate(() => {
        const active = document.activeElement?.shadowRoot?.activeElement ?? document.activeElement;
        return active?.getAttribute('aria-label') ?? active?.textContent?.trim() ?? active?.tagName ?? '';
      });
    await page.keyboard.press('Tab'); // the page's link
    await page.keyboard.press('Tab');
    expect(await focused()).to.equal('Open chat, 1 unread');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    expect(await focused()).to.equal('Message');
    const seen = new Set<string>();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      seen.add(await focused());
    }
    expect([...seen].sort()).to.deep.equal(['Attach a file', 'Close chat', 'Conversation', 'Message', 'Send'].sort());
    await page.keyboard.press('Shift+Tab');
    expect(seen.has(await focused())).to.equal(true);
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await focused()).to.match(/^Open chat/);
    expect((await eventsOf(page, 'svc:close')).length).to.equal(1);
  });

  it('takes its locale from the locale attribute, else the page (pt-BR → pt), fetching only that locale; ar is right-to-left', async () => {
    context = await browser.context();
    const page = await context.newPage();
    const chunks: string[] = [];
    page.on('request', (request) => request.url().includes('/widget/chunk.') && chunks.push(request.url()));
    await page.goto(widgetPage(host, '/pt.html', { lang: 'pt-BR' }));
    await launcher(page, 'Abrir o chat, 1 não lidas');
    expect(chunks).to.have.length(1);

    await page.goto(widgetPage(host, '/ar.html', { lang: 'fr', attributes: { locale: 'ar' } }));
    await (await launcher(page, /افتح المحادثة/)).click();
    const root = widget(page).locator('.root');
    expect(await root.getAttribute('dir')).to.equal('rtl');
    expect(await root.getAttribute('lang')).to.equal('ar');
    expect(
      await page.getByRole('textbox', { name: 'رسالة' }).evaluate((el) => getComputedStyle(el).direction),
    ).to.equal('rtl');
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`has no serious or critical axe-core violation with the panel open (${colorScheme})`, async () => {
      const page = await open(widgetPage(host, `/axe-${colorScheme}.html`), { colorScheme });
      await (await launcher(page)).click();
      await page.getByRole('log').getByText('Do you ship to Lisbon?').waitFor();
      expect(await seriousViolations(page)).to.deep.equal([]);
    });
  }

  it('honours prefers-reduced-motion (no panel animation)', async () => {
    const page = await open(widgetPage(host, '/motion.html'), { reducedMotion: 'reduce' });
    await (await launcher(page)).click();
    expect(await page.getByRole('dialog').evaluate((el) => getComputedStyle(el).animationName)).to.equal('none');
  });

  it('writes the screenshots: desktop and mobile, light and dark, and Arabic (right-to-left)', async function () {
    this.timeout(60_000);
    const dir = screenshotDir(mkdtempSync(path.join(tmpdir(), 'svc-widget-shots-')));
    const shots = [
      { name: 'desktop-light', viewport: { width: 1280, height: 800 }, colorScheme: 'light' as const },
      { name: 'desktop-dark', viewport: { width: 1280, height: 800 }, colorScheme: 'dark' as const },
      { name: 'mobile-light', viewport: { width: 390, height: 760 }, colorScheme: 'light' as const },
      { name: 'mobile-dark', viewport: { width: 390, height: 760 }, colorScheme: 'dark' as const },
      { name: 'desktop-rtl-ar', viewport: { width: 1280, height: 800 }, colorScheme: 'light' as const, locale: 'ar' },
    ];
    for (const shot of shots) {
      const page = await open(
        widgetPage(host, `/shot-${shot.name}.html`, { attributes: shot.locale ? { locale: shot.locale } : {} }),
        { viewport: shot.viewport, colorScheme: shot.colorScheme, reducedMotion: 'reduce' },
      );
      await page.evaluate(() => (document.querySelector('svc-widget') as unknown as { open(): Promise<void> }).open());
      await page.getByRole('log').locator('article').nth(2).waitFor();
      const file = path.join(dir, `${shot.name}.png`);
      await page.screenshot({ path: file });
      expect(statSync(file).size).to.be.greaterThan(5_000);
      await context?.close();
      context = undefined;
    }
  });
});
