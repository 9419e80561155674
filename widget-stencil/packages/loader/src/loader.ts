/**
 * loader.js (spec 4.4, decisions 0110–0112): reads its `<script>`'s data attributes and `window.svcSettings`, checks
 * the integration's gate, mounts the widget's iframe, and speaks the `svc:*:v1` protocol with it. `window.Svc(action,
 * …)` is defined at once; calls queued by the stub snippet (`Svc.q`) are replayed in order. It writes no cookie and
 * no storage: the widget in its iframe decides when it may remember the visitor.
 */
import {
  connectToWidget,
  type Channel,
  type HostToWidgetPayloads,
  type Prefill,
  type VisitorIdentity,
} from '@svc-inbox/widget-protocol';
import { frameUrl } from './frame-url.js';
import { frameBox } from './layout.js';
import { loaderOptions, type LoaderOptions } from './options.js';

/** The parts of an InjectableWidgetConfig (`GET /api/web/config/:publicKey`) the loader reads. */
interface InjectedConfig {
  status?: string;
  branding?: { hidden?: boolean; launcherPosition?: string };
}

interface SvcSettings {
  user?: VisitorIdentity | null;
  prefill?: Prefill;
  config?: InjectedConfig;
}

type SvcCall = [action: string, argument?: unknown];

interface SvcFunction {
  (...call: SvcCall): void;
  /** The stub snippet's queue: each entry is the `arguments` of one early call. */
  q?: ArrayLike<unknown>[];
  /** Set by loader.js: a second copy on the page leaves the first in charge. */
  loaded?: boolean;
}

declare global {
  interface Window {
    Svc?: SvcFunction;
    svcSettings?: SvcSettings;
  }
}

// Set while a classic script runs, `async` and `defer` included (loader.js is never a module).
const script = document.currentScript as HTMLScriptElement | null;
const settings: SvcSettings = window.svcSettings || {};

if (script && !(window.Svc && window.Svc.loaded)) boot(script);

function boot(element: HTMLScriptElement): void {
  const early = window.Svc && window.Svc.q ? Array.prototype.slice.call(window.Svc.q) : [];
  let run: ((call: SvcCall) => void) | undefined;
  const waiting: SvcCall[] = [];
  const svc: SvcFunction = (...call) => (run ? run(call) : waiting.push(call));
  svc.loaded = true;
  window.Svc = svc;
  early.forEach((args: ArrayLike<unknown>) => svc(...(Array.prototype.slice.call(args) as SvcCall)));

  const options = loaderOptions({ dataset: element.dataset, src: element.src });
  if (!options) return;
  void shown(options).then((show) => {
    if (!show) return;
    const mount = () => {
      run = mountFrame(options);
      waiting.splice(0).forEach(run);
    };
    if (document.body) mount();
    else document.addEventListener('DOMContentLoaded', mount);
  });
}

/** The gate (spec 4.3): nothing is mounted for an integration that is disabled, deleted, hidden or unreachable. */
async function shown(options: LoaderOptions): Promise<boolean> {
  let config: InjectedConfig | null | undefined = settings.config;
  if (!config) {
    const url = `${options.api}/api/web/config/${encodeURIComponent(options.publicKey)}?view=gate`;
    const response = await fetch(url).catch(() => null);
    if (!response || !response.ok) return false;
    config = (await response.json().catch(() => null)) as InjectedConfig | null;
    if (!config) return false;
  }
  return config.status !== 'DISABLED' && !(config.branding && config.branding.hidden);
}

/** Mounts the iframe and answers the function that carries out one `Svc(…)` call. */
function mountFrame(options: LoaderOptions): (call: SvcCall) => void {
  const frame = document.createElement('iframe');
  const left = ((settings.config && settings.config.branding) || {}).launcherPosition === 'BOTTOM_LEFT';
  frame.title = 'Chat';
  frame.src = frameUrl(options, {
    host: location.origin,
    locale: document.documentElement.lang,
    config: settings.config,
  });
  frame.setAttribute(
    'style',
    // color-scheme: a frame whose scheme differs from its element's gets an opaque canvas (CSS Color Adjust 1).
    `position:fixed;bottom:0;${left ? 'left' : 'right'}:0;width:0;height:0;border:0;z-index:2147483000;color-scheme:normal`,
  );
  document.body.appendChild(frame);

  let wanted = { width: 0, height: 0 };
  let open = false;
  let hidden = false;
  let user = settings.user;
  let prefill = settings.prefill;
  let readies = 0;
  const layout = () => {
    const box = frameBox(wanted, { width: innerWidth, height: innerHeight }, open);
    const style = frame.style;
    style.display = hidden ? 'none' : '';
    style.width = `${box.width}px`;
    style.height = `${box.height}px`;
    style.top = box.fullScreen ? '0' : '';
  };
  addEventListener('resize', layout);

  const widget: Channel<HostToWidgetPayloads> = connectToWidget({
    window,
    widget: frame.contentWindow as Window,
    widgetOrigin: options.api,
    onMessage(message) {
      switch (message.type) {
        case 'svc:widget:ready:v1':
          // A reloaded widget starts blank: it is told again who the visitor is (the first ready got the queue).
          if (readies++) sendState();
          return;
        case 'svc:widget:open:v1':
        case 'svc:widget:close:v1':
          open = message.type === 'svc:widget:open:v1';
          break;
        case 'svc:widget:resize:v1':
          wanted = message.payload;
      }
      layout();
    },
  });
  const sendState = () => {
    if (user !== undefined) widget.send('svc:identify:v1', { user });
    if (prefill) widget.send('svc:prefill:v1', { prefill });
  };
  sendState();

  return ([action, argument]) => {
    if (action === 'identify') {
      user = (argument as VisitorIdentity | null | undefined) || null;
      widget.send('svc:identify:v1', { user });
    } else if (action === 'prefill') {
      prefill = { ...prefill, ...(argument as Prefill) };
      widget.send('svc:prefill:v1', { prefill: argument as Prefill });
    } else if (action === 'shutdown') {
      user = undefined;
      widget.send('svc:shutdown:v1');
    } else if (action === 'showArticle') {
      // Sent as given: the widget's parser drops an id that is not a non-blank string.
      widget.send('svc:show-article:v1', { articleId: argument as string });
    } else if (action === 'showNews') {
      widget.send('svc:show-news:v1');
    } else if (action === 'show' || action === 'hide') {
      // Anything else is ignored, as a stub-queued call of a newer loader's action would be.
      hidden = action === 'hide';
      layout();
    }
  };
}
