/** What `<script src=…/widget/loader.js data-*>` asks for (spec 4.4), with the defaults of decision 0111. */
export interface LoaderOptions {
  publicKey: string;
  /**
   * The widget backend's base (`data-api`), where the gate and the frame document come from. Default: the origin of
   * `data-origin` (the widget's CDN base), whose default is the origin loader.js was loaded from: the chart and the
   * embedded stack serve `/widget` and `/api/web` on one host.
   */
  api: string;
  hideAttribution: boolean;
}

/** The data attributes of the loader's `<script>` (its `dataset`) and its absolute `src`. */
export interface ScriptFacts {
  dataset: { publicKey?: string; origin?: string; api?: string; hideAttribution?: string };
  src: string;
}

/** `null` without a public key: loader.js then mounts nothing (the element's demo mode is not for a live site). */
export function loaderOptions(script: ScriptFacts): LoaderOptions | null {
  const data = script.dataset;
  const publicKey = (data.publicKey || '').trim();
  if (!publicKey) return null;
  return {
    publicKey,
    api: withoutSlash(data.api || new URL(data.origin || script.src).origin),
    // A boolean attribute: present (even empty) is true, except an explicit "false".
    hideAttribution: data.hideAttribution !== undefined && data.hideAttribution !== 'false',
  };
}

function withoutSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
