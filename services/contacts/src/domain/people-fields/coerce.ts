import type { PeopleFieldType } from '../../entities/people-field';
import { normalizeEmail, normalizePhone } from '../normalize';

/** A value as stored: the canonical form of its type (JSON-serialisable). */
export type FieldValue = string | number | boolean | string[];

/**
 * How a value arrives: `json` typed as GraphQL JSON carries it (a NUMBER field takes a number, not "42"); `text` as
 * a rendered template or a form field carries it (the text is parsed as the type: "42", "true", "a, b").
 */
export type ValueSource = 'json' | 'text';

export interface FieldShape {
  type: PeopleFieldType;
  options: readonly string[];
}

export type Coerced = { ok: true; value: FieldValue } | { ok: false; reason: string };

export const TEXT_MAX = 2000;
const URL_MAX = 2048;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T/;

const fail = (reason: string): Coerced => ({ ok: false, reason });
const ok = (value: FieldValue): Coerced => ({ ok: true, value });

function isCalendarDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

function coerceNumber(value: unknown, source: ValueSource): Coerced {
  const text = typeof value === 'string' && source === 'text' ? value.trim() : undefined;
  const number = text !== undefined && text !== '' ? Number(text) : value;
  return typeof number === 'number' && Number.isFinite(number) ? ok(number) : fail('must be a number');
}

function coerceBoolean(value: unknown, source: ValueSource): Coerced {
  if (typeof value === 'boolean') return ok(value);
  const text = typeof value === 'string' && source === 'text' ? value.trim().toLowerCase() : undefined;
  if (text === 'true' || text === 'false') return ok(text === 'true');
  return fail('must be true or false');
}

function coerceDate(value: unknown, source: ValueSource): Coerced {
  if (typeof value !== 'string') return fail('must be a date (YYYY-MM-DD)');
  let text = value.trim();
  // A rendered template often carries a timestamp; its UTC day is the date.
  if (source === 'text' && ISO_DATE_TIME.test(text)) {
    const at = new Date(text);
    if (!Number.isNaN(at.getTime())) text = at.toISOString().slice(0, 10);
  }
  return isCalendarDate(text) ? ok(text) : fail('must be a date (YYYY-MM-DD)');
}

function coerceText(value: unknown, source: ValueSource): Coerced {
  // Text from a form or a template may arrive as a number or a boolean the sender parsed.
  if (source === 'text' && (typeof value === 'number' || typeof value === 'boolean'))
    return coerceText(String(value), source);
  if (typeof value !== 'string') return fail('must be a string');
  if (!value.trim()) return fail('must not be empty (null removes the value)');
  return value.length <= TEXT_MAX ? ok(value) : fail(`must be at most ${TEXT_MAX} characters`);
}

function coerceSelect(value: unknown, options: readonly string[]): Coerced {
  const text = typeof value === 'string' ? value.trim() : undefined;
  return text !== undefined && options.includes(text) ? ok(text) : fail("must be one of the field's options");
}

function listOf(value: unknown, source: ValueSource): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (source !== 'text' || typeof value !== 'string') return undefined;
  const text = value.trim();
  if (text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      return Array.isArray(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }
  return text ? text.split(',') : [];
}

/** Distinct options, in the definition's order (so equal selections store equally). */
function coerceMultiSelect(value: unknown, source: ValueSource, options: readonly string[]): Coerced {
  const list = listOf(value, source);
  if (!list || list.some((item) => typeof item !== 'string')) return fail("must be a list of the field's options");
  const chosen = new Set(list.map((item) => String(item).trim()));
  if (!chosen.size) return fail('must name at least one option (null removes the value)');
  if ([...chosen].some((item) => !options.includes(item))) return fail("must be a list of the field's options");
  return ok(options.filter((option) => chosen.has(option)));
}

function coerceUrl(value: unknown): Coerced {
  if (typeof value !== 'string') return fail('must be an http or https URL');
  const text = value.trim();
  if (text.length > URL_MAX) return fail(`must be at most ${URL_MAX} characters`);
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? ok(url.href) : fail('must be an http or https URL');
  } catch {
    return fail('must be an http or https URL');
  }
}

/** The normalisers of contacts' own email and phone throw; here the reason is what matters. */
function coerceWith(normalize: (text: string) => string, value: unknown, reason: string): Coerced {
  if (typeof value !== 'string') return fail(reason);
  try {
    return ok(normalize(value));
  } catch {
    return fail(reason);
  }
}

/**
 * A value of a field in its canonical form, or why it is not one. The reason never repeats the value (it is
 * personal data and reasons end up in errors and logs).
 */
export function coerceValue(field: FieldShape, value: unknown, source: ValueSource): Coerced {
  switch (field.type) {
    case 'TEXT':
      return coerceText(value, source);
    case 'NUMBER':
      return coerceNumber(value, source);
    case 'BOOLEAN':
      return coerceBoolean(value, source);
    case 'DATE':
      return coerceDate(value, source);
    case 'SELECT':
      return coerceSelect(value, field.options);
    case 'MULTI_SELECT':
      return coerceMultiSelect(value, source, field.options);
    case 'URL':
      return coerceUrl(value);
    case 'EMAIL':
      return coerceWith(normalizeEmail, value, 'must be an email address');
    case 'PHONE':
      return coerceWith(normalizePhone, value, 'must be an E.164 phone number such as +15550100100');
  }
}

/** A stored value as text, e.g. to convert it to another type (`source: 'text'`). */
export function valueAsText(value: FieldValue): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}
