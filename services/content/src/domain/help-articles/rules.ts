import { InvalidArgument } from '@svc/kit';
import { canonicalLocale } from '../locales';

export const MAX_TITLE_LENGTH = 300;
/** A long manual page is ~50 000 characters; twice that is plenty and keeps one translation's terms bounded. */
export const MAX_BODY_LENGTH = 100_000;
export const MAX_TAGS = 50;
/** The locale of an article created without one. */
export const DEFAULT_ARTICLE_LOCALE = 'en';

export function checkTitle(value: string, field = 'title'): string {
  const title = value.trim();
  if (!title || [...title].length > MAX_TITLE_LENGTH)
    throw new InvalidArgument(`${field} must be 1-${MAX_TITLE_LENGTH} characters`, { field });
  return title;
}

export function checkBody(value: string, field = 'bodyMarkdown'): string {
  if (value.length > MAX_BODY_LENGTH)
    throw new InvalidArgument(`${field} is longer than ${MAX_BODY_LENGTH} characters`, { field });
  return value;
}

/** A locale argument, canonical; unset → `fallback`. */
export function localeOr(value: string | undefined, fallback: string, field = 'locale'): string {
  return value === undefined ? fallback : canonicalLocale(value, field);
}
