import { JSONPath } from 'jsonpath-plus';

const PLACEHOLDER = /\{\{\s*webhook\.([^}]+?)\s*\}\}/g;

function renderValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * Renders `{{webhook.<path>}}` with the payload value at `$.<path>` (jsonpath-plus: `a.b`, `list[0].c`); a missing
 * field renders as `null` (spec 4.5: the schema is advisory, a payload is never rejected for a missing field).
 */
export function renderTemplate(template: string, payload: unknown): string {
  return template.replace(PLACEHOLDER, (_match, path: string) => {
    if (payload === null || typeof payload !== 'object') return 'null';
    try {
      const values = JSONPath({ path: `$.${path}`, json: payload as object, wrap: true }) as unknown[];
      return renderValue(values[0]);
    } catch {
      return 'null';
    }
  });
}
