import { connectToHost, type Channel, type WidgetToHostPayloads } from '@svc-inbox/widget-protocol';
import { type Components } from '../dist/types/components';
import { injectedConfig } from './injected-config';

type WidgetElement = Components.SvcWidget & HTMLElement;

/** What loader.js puts in the iframe URL's fragment (never in the query: nothing of it reaches a server log). */
export interface FrameOptions {
  host: string;
  api?: string;
  locale?: string;
  hideAttribution: boolean;
  /** `svcSettings.config` as JSON, unchecked (see `injectedConfig`). */
  config?: string;
}

export function readFrameOptions(hash: string): FrameOptions | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const host = params.get('host');
  if (!host) return null;
  return {
    host,
    api: params.get('api') ?? undefined,
    locale: params.get('locale') ?? undefined,
    hideAttribution: params.get('hideAttribution') === '1',
    config: params.get('config') ?? undefined,
  };
}

/**
 * In the frame document (`<svc-widget frame public-key=…>` in the iframe the loader mounted): the protocol's
 * messages drive the element, the element's events go back to the loader (decision 0107).
 */
export async function startFrameGlue(window: Window): Promise<Channel<WidgetToHostPayloads> | null> {
  const options = readFrameOptions(window.location.hash);
  if (!options) return null;
  // Listened to on the document (the events bubble and are composed) before the element is defined, so its first
  // size is never missed; it is kept until the channel exists.
  let host: Channel<WidgetToHostPayloads> | null = null;
  let size: { width: number; height: number } | null = null;
  const document = window.document;
  document.addEventListener('svc:resize', (event) => {
    const { width, height } = (event as CustomEvent<{ width: number; height: number }>).detail;
    size = { width, height };
    host?.send('svc:widget:resize:v1', size);
  });
  document.addEventListener('svc:open', () => host?.send('svc:widget:open:v1'));
  document.addEventListener('svc:close', () => host?.send('svc:widget:close:v1'));
  // The options are set before the element is defined (widget.js, a module, runs once the frame document is parsed):
  // the element takes them when it upgrades, so it boots once, with the page's config and without fetching one.
  const early = document.readyState === 'loading' ? null : document.querySelector<WidgetElement>('svc-widget[frame]');
  if (early) configure(early, options);
  await customElements.whenDefined('svc-widget');
  const element = await frameElement(document);
  if (!element) return null;
  if (element !== early) configure(element, options);
  // After the upgrade: a property with a default is reset by it, and this one does not restart the element.
  if (options.hideAttribution) element.hideAttribution = true;

  host = connectToHost({
    window,
    host: window.parent,
    hostOrigin: options.host,
    onMessage(message) {
      switch (message.type) {
        case 'svc:identify:v1':
          void element.identify(message.payload.user);
          break;
        case 'svc:prefill:v1': {
          // Each message adds to the prefill (svcSettings.prefill, then Svc('prefill', …)): absent fields are kept.
          const { name, email, phone } = message.payload.prefill;
          if (name !== undefined) element.prefillName = name;
          if (email !== undefined) element.prefillEmail = email;
          if (phone !== undefined) element.prefillPhone = phone;
          break;
        }
        case 'svc:shutdown:v1':
          void element.shutdown();
          break;
        case 'svc:show-article:v1':
          void element.showArticle(message.payload.articleId);
          break;
        case 'svc:show-news:v1':
          void element.showNews();
          break;
      }
    },
  });
  // The loader sizes the iframe from resize messages: the size the element reported before ready follows it.
  if (size) host.send('svc:widget:resize:v1', size);
  return host;
}

/**
 * The fragment's options fill what the frame document did not set (read from attributes: the element may not be
 * upgraded yet); the config only when it is one for the element's integration.
 */
function configure(element: WidgetElement, options: FrameOptions): void {
  const unset = (name: string, value: unknown) => value === undefined && !element.hasAttribute(name);
  if (options.api && unset('api', element.api)) element.api = options.api;
  if (options.locale && unset('locale', element.locale)) element.locale = options.locale;
  const config = injectedConfig(options.config ?? null, element.getAttribute('public-key'));
  if (config && element.config === undefined) element.config = config;
}

async function frameElement(document: Document): Promise<WidgetElement | null> {
  if (document.readyState === 'loading') {
    await new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }));
  }
  return document.querySelector<WidgetElement>('svc-widget[frame]');
}
