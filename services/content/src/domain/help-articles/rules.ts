export const MAX_TAGS = 50;
/** The locale of an article created without one. */
export const DEFAULT_ARTICLE_LOCALE = 'en';
