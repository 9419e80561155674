import { InvalidArgument } from '@svc/kit';

/** A BCP-47 tag in its canonical form (`pt-br` → `pt-BR`); anything else is INVALID_ARGUMENT naming the field. */
export function canonicalLocale(value: string, field = 'locale'): string {
  const trimmed = value.trim();
  try {
    const [canonical] = Intl.getCanonicalLocales(trimmed);
    if (canonical && canonical.length <= 35) return canonical;
  } catch {
    // RangeError: not a well-formed tag; answered below.
  }
  throw new InvalidArgument(`${field} is not a BCP-47 language tag: ${JSON.stringify(trimmed)}`, { field });
}

/**
 * The locales to try, best first, for a reader asking for `requested` (docs/decisions/0183): the tag itself, then
 * each shorter prefix (`pt-BR` → `pt`), then `fallback` (the web integration's default, or the content's own).
 * Distinct, canonical.
 */
export function localeFallbacks(requested: string | undefined, ...fallbacks: string[]): string[] {
  const chain: string[] = [];
  const add = (tag: string) => {
    if (tag && !chain.includes(tag)) chain.push(tag);
  };
  if (requested) {
    const subtags = requested.split('-');
    for (let length = subtags.length; length > 0; length -= 1) add(subtags.slice(0, length).join('-'));
  }
  for (const fallback of fallbacks) add(fallback);
  return chain;
}

/** A locale argument, canonical; unset → `fallback` (e.g. the item's default locale, or `undefined`: no filter). */
export function localeOr<F extends string | undefined>(
  value: string | undefined,
  fallback: F,
  field = 'locale',
): string | F {
  return value === undefined ? fallback : canonicalLocale(value, field);
}
