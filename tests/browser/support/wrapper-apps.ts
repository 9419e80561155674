import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { eventually } from '@svc/kit';
import { StackHarness, type TestOrg } from '../../support/stack-harness';
import { WidgetFixtures, userHash } from '../../support/widget';
import { BrowserHarness } from './chromium';

const ROOT = path.resolve(__dirname, '../../../..');

/**
 * Builds one example app of widget-stencil/examples with widget-stencil/examples/build.mjs (packs the packages,
 * `npm ci` from the app's lockfile, its framework's own build; both cached while nothing changed) and answers the
 * directory of its static site.
 */
export function buildExampleApp(app: string): string {
  const out = execFileSync('node', [path.join(ROOT, 'widget-stencil/examples/build.mjs'), app], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').pop() ?? '';
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

/**
 * A built app served as a website would serve it, on `http://localhost:<port>` (the stack is on 127.0.0.1, so the
 * widget is cross-origin to the page). Paths without a file answer index.html (client-side routing).
 */
export class StaticSite {
  private server: Server | undefined;

  constructor(private readonly dir: string) {}

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
      const file = path.join(this.dir, path.normalize(pathname).replace(/^(\.\.[/\\])+/, ''));
      const send = (body: Buffer, name: string) => {
        response.writeHead(200, { 'content-type': TYPES[path.extname(name)] ?? 'application/octet-stream' });
        response.end(body);
      };
      const fallback = async () => {
        if (path.extname(pathname)) response.writeHead(404).end();
        else send(await readFile(path.join(this.dir, 'index.html')), 'index.html');
      };
      readFile(file)
        .then((body) => send(body, file), fallback)
        .catch(() => response.writeHead(500).end());
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  get origin(): string {
    return `http://localhost:${(this.server?.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The page every example app renders: buttons that call the element, and the callbacks it received, in order. */
export class ExamplePage {
  constructor(readonly page: Page) {}

  events(): Promise<string[]> {
    return this.page.locator('#events li').allTextContents();
  }

  /** The first callback from index `after` on that matches. */
  waitForEvent(pattern: RegExp, after = 0): Promise<string> {
    return eventually(
      async () => (await this.events()).slice(after).find((entry) => pattern.test(entry)),
      15_000,
      `callback ${pattern}`,
    );
  }

  /** Clicks one of the app's own buttons: `open-chat`, `close-chat`, `re-render`. */
  async click(id: 'open-chat' | 'close-chat' | 're-render'): Promise<void> {
    await this.page.locator(`#${id}`).click();
  }
}

/** Counts the calls of the element's identify() (the page's own registry, patched before any app code runs). */
const COUNT_IDENTIFY = `
  const define = customElements.define.bind(customElements);
  customElements.define = (name, element, options) => {
    if (name === 'svc-widget') {
      const identify = element.prototype.identify;
      element.prototype.identify = function (user) {
        (window.svcIdentifyCalls ??= []).push(user);
        return identify.call(this, user);
      };
    }
    return define(name, element, options);
  };
`;

interface WrapperSuite {
  /** The example app's directory under widget-stencil/examples. */
  app: string;
  /** What the app prints as its framework's version (`#framework-version`). */
  version: RegExp;
}

/**
 * One example app built with its framework's tooling, mounted in Chromium against the embedded stack: the element
 * mounts with the public key, the `user` given to the wrapper makes an identified session (and the same user rebuilt
 * on a re-render does not identify again), and the wrapper's resize/open/close callbacks reach the app.
 */
export function describeWrapperApp({ app, version }: WrapperSuite): void {
  describe(`${app} example app with its wrapper (built by its own tooling, Chromium)`, function () {
    const harness = new StackHarness();
    const browser = new BrowserHarness();
    let site: StaticSite;
    let org: TestOrg;
    let fixtures: WidgetFixtures;

    before(async function () {
      // Installs and builds the app when its sources, lockfile or the packed packages changed.
      this.timeout(600_000);
      site = new StaticSite(buildExampleApp(app));
      await Promise.all([harness.start(), browser.start(), site.start()]);
      org = await harness.newOrg(`Wrapper ${app}`);
      fixtures = new WidgetFixtures(harness, org);
    });

    after(async () => {
      await browser.stop();
      await site?.stop();
      await harness.stop();
    });

    async function open(query: Record<string, string>): Promise<ExamplePage> {
      const context = await browser.context();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${site.origin}/?${new URLSearchParams(query).toString()}`);
      await page.locator('#framework-version').waitFor();
      expect(errors).to.deep.equal([]);
      return new ExamplePage(page);
    }

    it('mounts svc-widget in demo mode and reports resize, open and close through the wrapper', async () => {
      const example = await open({});
      try {
        expect(await example.page.locator('#framework-version').textContent()).to.match(version);
        await example.page.locator('svc-widget').waitFor({ state: 'attached' });
        // The app's class reaches the element (React's className, Vue's fall-through) or the wrapper around it.
        const classed = await example.page
          .locator('.support-widget')
          .evaluate((node) => node.localName === 'svc-widget' || node.querySelector('svc-widget') !== null);
        expect(classed).to.equal(true);
        const launcher = await example.waitForEvent(/^resize \d+x\d+$/);
        // Counted before the click: the open and the panel's size may be reported before a count taken after it.
        const beforeOpen = (await example.events()).length;
        await example.click('open-chat');
        await example.waitForEvent(/^open$/, beforeOpen);
        const panel = await example.waitForEvent(/^resize \d+x\d+$/, beforeOpen);
        expect(panel, 'the open panel wants more room than the launcher').not.to.equal(launcher);
        await example.click('close-chat');
        await example.waitForEvent(/^close$/);
      } finally {
        await example.page.context().close();
      }
    });

    it("mounts with the public key, identifies the wrapper's user once, and talks to the stack", async () => {
      const { integration, secret } = await fixtures.integration({ allowedOrigins: { origins: [site.origin] } });
      const publicKey = integration.publicKey;
      const userId = `wrapper-${app}-${Date.now()}`;
      const user = { userId, userHash: userHash(secret, userId), name: 'Ada Wrapper' };
      const context = await browser.context();
      await context.addInitScript(COUNT_IDENTIFY);
      const stackAnswers: string[] = [];
      const handshakes: { identified: boolean; userId?: string }[] = [];
      context.on('response', (response) => {
        const url = response.url();
        if (!url.startsWith(`${harness.url}/api/web/`)) return;
        stackAnswers.push(`${response.status()} ${url.slice(harness.url.length)}`);
        if (!url.endsWith('/visitor/start-identified')) return;
        const sent = response.request().postDataJSON() as { userId?: string };
        void response
          .json()
          .then((body: { identified?: boolean }) =>
            handshakes.push({ identified: body.identified === true, userId: sent.userId }),
          );
      });
      try {
        const page = await context.newPage();
        await page.goto(
          `${site.origin}/?${new URLSearchParams({ publicKey, api: harness.url, user: JSON.stringify(user) })}`,
        );
        const example = new ExamplePage(page);
        await page.locator(`svc-widget[public-key="${publicKey}"]`).waitFor({ state: 'attached' });
        await eventually(
          async () => stackAnswers.some((answer) => answer.startsWith('200 ') && answer.includes(publicKey)),
          15_000,
          'an answer from the stack for the public key',
        );
        await example.click('open-chat');
        await example.waitForEvent(/^open$/);
        await eventually(async () => handshakes.length > 0, 15_000, 'the identified handshake');
        expect(handshakes[0]).to.deep.equal({ identified: true, userId });

        // The app passes a new, equal user object on every render: the wrapper must not identify again.
        await example.click('re-render');
        await example.click('re-render');
        await page.locator('#re-render', { hasText: '(2)' }).waitFor();
        expect(await page.evaluate(() => (window as { svcIdentifyCalls?: unknown[] }).svcIdentifyCalls)).to.deep.equal([
          user,
        ]);
        expect(handshakes).to.have.length(1);
      } finally {
        await context.close();
      }
    });
  });
}
