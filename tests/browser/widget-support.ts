import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { HostPage } from './support/host-page';

/** packages/core/www: widget.js and its hashed chunks, as `npm run build` leaves them. */
export const WWW = path.resolve(__dirname, '../../../widget-stencil/packages/core/www');
const AXE = require.resolve('axe-core/axe.min.js');

/** Serves www/* under `/widget/` on the host page's origin, the way a site serves a bundler's output. */
export function serveWidget(host: HostPage): void {
  for (const name of readdirSync(WWW)) {
    host.page(`/widget/${name}`, readFileSync(path.join(WWW, name), 'utf8'), 'text/javascript; charset=utf-8');
  }
}

export interface WidgetPageOptions {
  /** Attributes of `<svc-widget>`, e.g. `{ 'public-key': … }`. */
  attributes?: Record<string, string>;
  lang?: string;
}

/** A shop page with `<svc-widget>` on it; every svc:* event is recorded on `window.svcEvents` (at the document). */
export function widgetPage(host: HostPage, pathname: string, options: WidgetPageOptions = {}): string {
  const attributes = Object.entries(options.attributes ?? {})
    .map(([name, value]) => ` ${name}="${value.replace(/"/g, '&quot;')}"`)
    .join('');
  return host.page(
    pathname,
    `<!doctype html><html lang="${options.lang ?? 'en'}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title>
<script>
  window.svcEvents = [];
  for (const type of ['svc:resize', 'svc:open', 'svc:close', 'svc:unread']) {
    document.addEventListener(type, (event) =>
      window.svcEvents.push({ type, detail: event.detail ?? null, bubbles: event.bubbles, composed: event.composed }));
  }
</script></head>
<body><main><h1>Shop</h1><p>Handmade things.</p><a href="#top">Top</a></main>
<svc-widget${attributes}></svc-widget>
<script type="module" src="/widget/widget.js"></script></body></html>`,
  );
}

export interface RecordedEvent {
  type: string;
  detail: unknown;
  bubbles: boolean;
  composed: boolean;
}

export function recordedEvents(page: Page): Promise<RecordedEvent[]> {
  return page.evaluate(() => (window as unknown as { svcEvents: RecordedEvent[] }).svcEvents);
}

/** Waits until the element rendered its launcher (the first paint waited for config and locale). */
export async function launcher(page: Page, name: string | RegExp = /open chat/i) {
  const button = page.getByRole('button', { name });
  await button.waitFor();
  return button;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core over the page (it descends into open shadow roots); the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document)).violations;
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Where screenshots go: docs/widget/ when SVC_WRITE_SCREENSHOTS=1 (to refresh the docs), else a temporary folder. */
export function screenshotDir(fallback: string): string {
  return process.env.SVC_WRITE_SCREENSHOTS === '1' ? path.resolve(__dirname, '../../../docs/widget') : fallback;
}

/** Retries `check` (an assertion) until it passes or the deadline passes, then throws its last failure. */
export async function until(check: () => unknown, deadlineMs = 15_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
