import type { LoaderOptions } from './options.js';

/** What the frame glue reads from the iframe URL's fragment (never sent to a server, never in a log or a Referer). */
export interface FrameFacts {
  /** The embedding page's origin: the only one the widget listens to and posts to. */
  host: string;
  /** The page's language (`<html lang>`), one step of the widget's locale fallback; empty: not passed. */
  locale: string;
  /** `svcSettings.config` (an InjectableWidgetConfig), passed whole so the widget skips its config fetch. */
  config?: unknown;
}

/**
 * `{api}/api/web/frame/:publicKey#host=…&api=…&locale=…&hideAttribution=1&config=…` (the plan's frame-mode
 * contract; a form-encoded fragment, `new URLSearchParams(location.hash.slice(1))` reads it). The frame document
 * comes from widget-api so its `frame-ancestors` names the integration's allowed origins (decision 0089).
 */
export function frameUrl(options: LoaderOptions, facts: FrameFacts): string {
  const fragment = new URLSearchParams({ host: facts.host, api: options.api });
  if (facts.locale) fragment.set('locale', facts.locale);
  if (options.hideAttribution) fragment.set('hideAttribution', '1');
  if (facts.config !== undefined) fragment.set('config', JSON.stringify(facts.config));
  return `${options.api}/api/web/frame/${encodeURIComponent(options.publicKey)}#${fragment}`;
}
