import { canonicalLocale, localeFallbacks } from '../locales';

/**
 * The locales a visitor reads in, best first (docs/decisions/0183): the asked-for tag and its prefixes, then the web
 * integration's default. Each item adds its own default locale last (`forItem`). Empty strings mean unset.
 */
export class ReaderLocales {
  private readonly chain: string[];

  constructor(locale: string, fallbackLocale: string) {
    const requested = locale.trim() ? canonicalLocale(locale, 'locale') : undefined;
    const fallback = fallbackLocale.trim() ? canonicalLocale(fallbackLocale, 'fallbackLocale') : undefined;
    this.chain = localeFallbacks(requested, ...(fallback ? [fallback] : []));
  }

  /** The first locale of the chain (then `ownDefault`) that `available` holds; undefined when none. */
  pick(available: ReadonlySet<string>, ownDefault: string): string | undefined {
    return [...this.chain, ownDefault].find((locale) => available.has(locale));
  }
}
