import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';

/** tests/dist/browser → the repository root. */
const root = path.resolve(__dirname, '..', '..', '..');
export const builtWidgetDir = path.join(root, 'widget-stencil', 'dist', 'widget');

/**
 * A widget directory for the stack's /widget/ (SVC_WIDGET_DIR) whose widget.js is a probe instead of the real
 * element: the built loader.js, and a widget.js that runs only the protocol package's `connectToHost` (its real
 * code, copied from its build), records what reaches it and sends what a test tells it to. It tests the loader and
 * the wire between loader and frame without depending on the element's UI.
 */
export function probeWidgetDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-widget-probe-'));
  const protocolBuild = path.join(root, 'widget-stencil', 'packages', 'protocol', 'dist', 'src');
  fs.mkdirSync(path.join(dir, 'protocol'));
  const files: string[] = ['loader.js', 'widget.js', 'other.html'];
  fs.copyFileSync(path.join(builtWidgetDir, 'loader.js'), path.join(dir, 'loader.js'));
  for (const file of fs.readdirSync(protocolBuild).filter((name) => name.endsWith('.js'))) {
    fs.copyFileSync(path.join(protocolBuild, file), path.join(dir, 'protocol', file));
    files.push(`protocol/${file}`);
  }
  fs.writeFileSync(
    path.join(dir, 'widget.js'),
    `import { connectToHost } from './protocol/index.js';
const facts = new URLSearchParams(location.hash.slice(1));
window.svcReceived = [];
window.svcHost = connectToHost({
  window, host: window.parent, hostOrigin: facts.get('host'),
  onMessage: (message) => window.svcReceived.push(message),
});
`,
  );
  // A page on the widget's own origin that is not the widget's frame (same origin, another source).
  fs.writeFileSync(path.join(dir, 'other.html'), '<!doctype html><title>other</title>');
  const manifest = Object.fromEntries(
    files.map((file) => [file, { size: 0, sha256: '00'.repeat(32), immutable: false }]),
  );
  fs.writeFileSync(path.join(dir, 'asset-manifest.json'), JSON.stringify({ files: manifest }));
  return dir;
}

export interface HostPageOptions {
  /** The loader's `<script>` attributes (data-public-key and the rest). */
  attributes: Record<string, string>;
  loaderUrl: string;
  /** `window.svcSettings`, set before the loader runs. */
  settings?: unknown;
  /** `Svc(…)` calls made through the stub snippet before the loader loads. */
  early?: unknown[][];
  lang?: string;
}

/**
 * A customer's page: it records every message event it sees (`window.seen`), installs the documented stub snippet,
 * makes the early calls, then loads loader.js (async, as the docs show).
 */
export function hostHtml(options: HostPageOptions): string {
  const attributes = Object.entries(options.attributes)
    .map(([name, value]) => ` ${name}="${value.replace(/"/g, '&quot;')}"`)
    .join('');
  const early = (options.early ?? []).map((call) => `Svc(...${JSON.stringify(call)});`).join('\n');
  return `<!doctype html><html lang="${options.lang ?? 'en'}"><head><meta charset="utf-8"><title>Shop</title>
<script>
window.seen = [];
addEventListener('message', (event) => seen.push({ origin: event.origin, data: event.data }));
${options.settings === undefined ? '' : `window.svcSettings = ${JSON.stringify(options.settings)};`}
window.Svc = window.Svc || function () { (Svc.q = Svc.q || []).push(arguments); };
${early}
</script>
<script async src="${options.loaderUrl}"${attributes}></script>
</head><body><h1>Shop</h1></body></html>`;
}

/** The widget's iframe once its frame document has loaded (polls: no sleeps). */
export async function widgetFrame(page: Page): Promise<Frame> {
  const handle = await page.waitForSelector('iframe[title="Chat"]', { state: 'attached' });
  const frame = await handle.contentFrame();
  if (!frame) throw new Error('the iframe has no frame');
  await frame.waitForLoadState('load');
  return frame;
}

/** What reached the probe widget, in order. */
export function received(frame: Frame): Promise<{ type: string; payload?: unknown }[]> {
  return frame.evaluate(() => (window as unknown as { svcReceived?: { type: string }[] }).svcReceived ?? []);
}

/** The probe widget sends one protocol message to the page. */
export function widgetSends(frame: Frame, type: string, payload?: unknown): Promise<void> {
  return frame.evaluate(
    ([t, p]) =>
      (window as unknown as { svcHost: { send(type: string, payload?: unknown): void } }).svcHost.send(t as string, p),
    [type, payload] as const,
  );
}

/** The iframe's inline size and display, as the loader set them. */
export function frameStyle(page: Page): Promise<{ width: string; height: string; display: string; top: string }> {
  return page.$eval('iframe[title="Chat"]', (element) => {
    const style = (element as HTMLElement).style;
    return { width: style.width, height: style.height, display: style.display, top: style.top };
  });
}
