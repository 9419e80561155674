import type { PayloadSchemaField } from '@svc/proto/webhooks/v1';

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value === 'object' ? 'object' : typeof value;
}

/**
 * The advisory schema of one payload (spec 3: a capture replaces the schema, no merge): every field path with its
 * type; required when present and non-null. Array items share one path (`list[].c`); an item field is required only
 * when every item has it.
 */
export function inferSchema(payload: unknown): PayloadSchemaField[] {
  const fields = new Map<string, { types: Set<string>; seen: number; expected: number; nullable: boolean }>();
  const visit = (value: unknown, path: string, expected: number) => {
    if (path) {
      const field = fields.get(path) ?? { types: new Set<string>(), seen: 0, expected, nullable: false };
      field.types.add(typeOf(value));
      field.seen += 1;
      if (value === null) field.nullable = true;
      fields.set(path, field);
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, `${path}[]`, value.length);
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) visit(inner, path ? `${path}.${key}` : key, expected);
    }
  };
  visit(payload, '', 1);
  return [...fields].map(([path, field]) => ({
    path,
    type: [...field.types].filter((t) => t !== 'null').join('|') || 'null',
    required: !field.nullable && field.seen >= field.expected,
  }));
}
