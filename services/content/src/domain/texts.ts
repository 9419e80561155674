import { InvalidArgument } from '@svc/kit';

/** The title of an article or post translation, in characters (code points, as the column counts them). */
export const MAX_TITLE_LENGTH = 300;
/** A long manual page is ~50 000 characters; twice that is plenty and keeps one translation's terms bounded. */
export const MAX_BODY_LENGTH = 100_000;

/** A title without surrounding space, 1..MAX_TITLE_LENGTH characters; else BAD_USER_INPUT naming `field`. */
export function checkTitle(value: string, field = 'title'): string {
  const title = value.trim();
  if (!title || [...title].length > MAX_TITLE_LENGTH)
    throw new InvalidArgument(`${field} must be 1-${MAX_TITLE_LENGTH} characters`, { field });
  return title;
}

/** A Markdown body of at most MAX_BODY_LENGTH characters; else BAD_USER_INPUT naming `field`. */
export function checkBody(value: string, field = 'bodyMarkdown'): string {
  if (value.length > MAX_BODY_LENGTH)
    throw new InvalidArgument(`${field} is longer than ${MAX_BODY_LENGTH} characters`, { field });
  return value;
}
