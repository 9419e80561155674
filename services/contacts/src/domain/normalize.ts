import { InvalidArgument } from '@svc/kit';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/** Emails compare case-insensitively, so they are stored and looked up lower-cased. */
export function normalizeEmail(value: string, field = 'email'): string {
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email))
    throw new InvalidArgument(`${field} is not an email address`, { field });
  return email;
}

/**
 * Phone numbers in E.164 (`+` country code and number, at most 15 digits). Separators people type (spaces, dashes,
 * dots, parentheses) and a `00` international prefix are accepted; national numbers without a country code are not,
 * because guessing the country would make two spellings of one number resolve to different people.
 */
export function normalizePhone(value: string, field = 'phone'): string {
  let phone = value.trim().replace(/[\s\-().]/g, '');
  if (phone.startsWith('00')) phone = `+${phone.slice(2)}`;
  if (!E164.test(phone)) throw new InvalidArgument(`${field} must be an E.164 number such as +15550100100`, { field });
  return phone;
}

/** Phone lookups accept any spelling that normalises; anything else simply matches nobody. */
export function tryNormalizePhone(value: string): string | undefined {
  try {
    return normalizePhone(value);
  } catch {
    return undefined;
  }
}

export type Attributes = Record<string, unknown>;

export function parseAttributes(json: string, field = 'customAttributes'): Attributes {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new InvalidArgument(`${field} must be a JSON object`, { field });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new InvalidArgument(`${field} must be a JSON object`, { field });
  if (json.length > 64 * 1024) throw new InvalidArgument(`${field} must be at most 64 KB`, { field });
  return value as Attributes;
}

export function optionalText(value: string | undefined, field: string, max: number): string | null | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!text) return null;
  if (text.length > max) throw new InvalidArgument(`${field} must be at most ${max} characters`, { field });
  return text;
}
