/** The UI's own language when nothing else matches. */
export const FALLBACK_LOCALE = 'en';

/**
 * The shipped locale to show (issue 15): the `locale` the page forced, then the page's language (`<html lang>` or
 * `navigator.language`), then the integration's default, then `en`; each by BCP-47 lookup (RFC 4647 §3.4: drop the
 * last subtag until one is shipped, so `pt-BR` → `pt`, `zh-Hant-TW` → `zh-Hant` → `zh`). Matching ignores case and
 * accepts `_` for `-`; the answer is spelled as in `shipped`.
 */
export function resolveLocale(
  requested: string | null | undefined,
  pageLang: string | null | undefined,
  integrationDefault: string | null | undefined,
  shipped: readonly string[],
): string {
  const byKey = new Map<string, string>();
  for (const tag of shipped) byKey.set(normalise(tag), tag);
  for (const candidate of [requested, pageLang, integrationDefault, FALLBACK_LOCALE]) {
    const found = lookup(candidate, byKey);
    if (found !== undefined) return found;
  }
  return shipped[0] ?? FALLBACK_LOCALE;
}

function lookup(tag: string | null | undefined, byKey: Map<string, string>): string | undefined {
  if (!tag) return undefined;
  const subtags = normalise(tag).split('-');
  while (subtags.length > 0) {
    const found = byKey.get(subtags.join('-'));
    if (found !== undefined) return found;
    subtags.pop();
    // RFC 4647: a single-letter subtag (an extension or private-use singleton) is dropped with what follows it.
    if (subtags.length > 0 && subtags[subtags.length - 1]!.length === 1) subtags.pop();
  }
  return undefined;
}

function normalise(tag: string): string {
  return tag.trim().replace(/_/g, '-').toLowerCase();
}
