// Shape checks shared by the validators. Written for data that crossed a postMessage boundary (a structured clone
// made in this realm) or came from a host page's globals (possibly another realm), so nothing relies on instanceof.

export type PlainObject = Record<string, unknown>;

export function isPlainObject(value: unknown): value is PlainObject {
  return Object.prototype.toString.call(value) === '[object Object]';
}

/** True when every own key of `value` is one of `allowed` (missing keys are the caller's business). */
export function hasOnlyKeys(value: PlainObject, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.indexOf(key) >= 0);
}

export function hasOwn(value: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(value, key);
}

export function isText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Absent (or undefined, as JSON would drop it), or text: how every optional string field is checked. */
export function isOptionalText(value: PlainObject, key: string): boolean {
  return value[key] === undefined || isText(value[key]);
}
