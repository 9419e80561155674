/** DateTime on every surface: ISO-8601 UTC with milliseconds and a trailing Z. */
export function toIso(date: Date): string {
  return date.toISOString();
}

export function toIsoOrUndefined(date: Date | null | undefined): string | undefined {
  return date ? date.toISOString() : undefined;
}

/**
 * The current time truncated to whole milliseconds, so what is stored (datetime(3)) and what is returned agree.
 */
export function now(): Date {
  return new Date(Date.now());
}
