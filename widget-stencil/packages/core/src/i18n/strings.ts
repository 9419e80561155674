import { type Strings } from './locales/en';

export type { Strings };

/** The locales shipped; each is its own chunk, fetched only when chosen (decision 0106). */
export const SHIPPED_LOCALES = ['en', 'es', 'fr', 'de', 'pt', 'ja', 'ar'] as const;
export type ShippedLocale = (typeof SHIPPED_LOCALES)[number];

const RIGHT_TO_LEFT: readonly string[] = ['ar'];

// One static import() per locale, so the bundlers (Stencil's and esbuild) split each into its own chunk.
const LOADERS: Record<ShippedLocale, () => Promise<{ default: Strings }>> = {
  en: () => import('./locales/en'),
  es: () => import('./locales/es'),
  fr: () => import('./locales/fr'),
  de: () => import('./locales/de'),
  pt: () => import('./locales/pt'),
  ja: () => import('./locales/ja'),
  ar: () => import('./locales/ar'),
};

export async function loadStrings(locale: ShippedLocale): Promise<Strings> {
  return (await LOADERS[locale]()).default;
}

export function isShipped(tag: string): tag is ShippedLocale {
  return (SHIPPED_LOCALES as readonly string[]).includes(tag);
}

export function direction(locale: ShippedLocale): 'rtl' | 'ltr' {
  return RIGHT_TO_LEFT.includes(locale) ? 'rtl' : 'ltr';
}

/** Fills `{name}` placeholders. */
export function format(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in values ? String(values[key]) : whole));
}
