import { InvalidArgument } from '@svc/kit';
import type { BusinessHoursInterval } from '@svc/proto/channels/v1';

/** Every check answers BAD_USER_INPUT naming the field (`field` is the input path, e.g. `branding.primaryColor`). */
function invalid(field: string, message: string): never {
  throw new InvalidArgument(`${field}: ${message}`, { field });
}

export const MAX_ORIGINS = 50;
export const MAX_BUSINESS_HOURS = 70;
export const JWT_MAX_AGE_BOUNDS = { min: 60, max: 7 * 24 * 3600 } as const;

/** Trimmed text of 1..max characters (`allowEmpty`: 0..max). */
export function text(value: string, field: string, max: number, { allowEmpty = true } = {}): string {
  const trimmed = value.trim();
  if (!allowEmpty && !trimmed) invalid(field, 'must not be empty');
  if ([...trimmed].length > max) invalid(field, `at most ${max} characters`);
  return trimmed;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * An origin as browsers send it (`Origin` header): `https://host[:port]`, lower-case host, no default port, no path,
 * query, fragment or credentials. `http:` only for localhost (development); wildcards are not origins.
 */
export function origin(value: string, field: string): string {
  const raw = value.trim();
  if (raw.includes('*')) invalid(field, 'wildcards are not allowed; list each origin');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid(field, `"${raw}" is not an origin like https://www.example.com`);
  }
  const local = LOCAL_HOSTS.has(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local))
    invalid(field, 'must be https (http only for localhost)');
  if (url.username || url.password) invalid(field, 'must not carry credentials');
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || /^[a-z]+:\/\/[^/]+\/./i.test(raw))
    invalid(field, 'an origin has no path, query or fragment');
  return url.origin;
}

/** Normalised, duplicates dropped (order kept). */
export function origins(values: string[], field: string): string[] {
  if (values.length > MAX_ORIGINS) invalid(field, `at most ${MAX_ORIGINS} origins`);
  return [...new Set(values.map((value, i) => origin(value, `${field}[${i}]`)))];
}

export function color(value: string, field: string): string {
  const trimmed = value.trim();
  if (!/^#[0-9a-fA-F]{6}$/.test(trimmed)) invalid(field, 'must be a #rrggbb colour');
  return trimmed.toLowerCase();
}

/** An https URL, or empty (none). */
export function httpsUrl(value: string, field: string): string {
  const trimmed = value.trim();
  if (!trimmed) return '';
  if (trimmed.length > 2048) invalid(field, 'at most 2048 characters');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return invalid(field, 'must be an https URL');
  }
  if (url.protocol !== 'https:' || url.username || url.password) invalid(field, 'must be an https URL');
  return url.toString();
}

/** A BCP 47 language tag, canonicalised (`pt-br` → `pt-BR`). */
export function locale(value: string, field: string): string {
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > 35) invalid(field, 'must be a BCP 47 language tag such as en or pt-BR');
  try {
    const [canonical] = Intl.getCanonicalLocales(trimmed);
    if (canonical) return canonical;
  } catch {
    // RangeError: not a well-formed tag.
  }
  return invalid(field, `"${trimmed}" is not a BCP 47 language tag such as en or pt-BR`);
}

/** An IANA time zone the runtime knows (Intl), e.g. Europe/Lisbon. */
export function timeZone(value: string, field: string): string {
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > 64) invalid(field, 'must be an IANA time zone such as Europe/Lisbon');
  try {
    new Intl.DateTimeFormat('en', { timeZone: trimmed });
    return trimmed;
  } catch {
    return invalid(field, `"${trimmed}" is not an IANA time zone such as Europe/Lisbon`);
  }
}

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

function minutes(value: string): number {
  const [h, m] = value.split(':');
  return Number(h) * 60 + Number(m);
}

/**
 * Opening intervals: weekday 1 (Monday)..7 (Sunday), `HH:MM` 24-hour, `closes` after `opens` (`24:00` closes at
 * midnight), no two intervals of one weekday overlapping. Sorted by weekday, then opening time.
 */
export function businessHours(intervals: BusinessHoursInterval[], field: string): BusinessHoursInterval[] {
  if (intervals.length > MAX_BUSINESS_HOURS) invalid(field, `at most ${MAX_BUSINESS_HOURS} intervals`);
  const checked = intervals.map((interval, i) => {
    const at = `${field}[${i}]`;
    if (!Number.isInteger(interval.weekday) || interval.weekday < 1 || interval.weekday > 7)
      invalid(`${at}.weekday`, 'must be 1 (Monday) to 7 (Sunday)');
    const opens = interval.opens.trim();
    const closes = interval.closes.trim();
    if (!HH_MM.test(opens)) invalid(`${at}.opens`, 'must be HH:MM (00:00 to 23:59)');
    if (!HH_MM.test(closes) && closes !== '24:00') invalid(`${at}.closes`, 'must be HH:MM (00:01 to 24:00)');
    if (minutes(closes) <= minutes(opens)) invalid(`${at}.closes`, 'must be after opens');
    return { interval: { weekday: interval.weekday, opens, closes }, index: i };
  });
  checked.sort(
    (a, b) => a.interval.weekday - b.interval.weekday || minutes(a.interval.opens) - minutes(b.interval.opens),
  );
  checked.forEach((current, i) => {
    const previous = checked[i - 1];
    if (
      previous &&
      previous.interval.weekday === current.interval.weekday &&
      minutes(current.interval.opens) < minutes(previous.interval.closes)
    )
      invalid(
        `${field}[${current.index}]`,
        `overlaps ${field}[${previous.index}] on weekday ${current.interval.weekday}`,
      );
  });
  return checked.map((c) => c.interval);
}

export function jwtMaxAge(value: number, field: string): number {
  const { min, max } = JWT_MAX_AGE_BOUNDS;
  if (!Number.isInteger(value) || value < min || value > max)
    invalid(field, `must be a whole number of seconds from ${min} to ${max}`);
  return value;
}

/** A proto enum value among `allowed` (the unspecified and unrecognised placeholders are refused). */
export function oneOf<T extends string>(value: T, allowed: readonly T[], field: string): T {
  if (!allowed.includes(value)) invalid(field, `must be one of ${allowed.join(', ')}`);
  return value;
}

/** Text without whitespace or control characters (an OAuth client id), or empty. */
export function token(value: string, field: string, max: number): string {
  const trimmed = text(value, field, max);
  if (/[\s\p{Cc}]/u.test(trimmed)) invalid(field, 'must not contain spaces or control characters');
  return trimmed;
}

export { invalid };
