import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core (never a downloaded browser). The path comes from
 * tests/infra/chromium.sh, which installs the package when it is missing; these flags keep it off the network it
 * cannot reach (without them it opens many connections to Google's hosts that this machine refuses). Playwright gives
 * every launch a fresh temporary profile.
 */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let executable: string | undefined;

function chromiumPath(): string {
  executable ??= execFileSync('bash', [path.resolve(__dirname, '../../../infra/chromium.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return executable;
}

export class BrowserHarness {
  private browser: Browser | undefined;

  async start(): Promise<void> {
    this.browser = await chromium.launch({ executablePath: chromiumPath(), args: FLAGS });
  }

  /** A fresh context (no cookies, no storage): one visitor. */
  context(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
    if (!this.browser) throw new Error('BrowserHarness.start() first');
    return this.browser.newContext(options);
  }

  async stop(): Promise<void> {
    await this.browser?.close();
    this.browser = undefined;
  }
}
