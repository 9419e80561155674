import { Column, PrimaryColumn, type ColumnOptions } from 'typeorm';

/**
 * Portable column shapes shared by MySQL/MariaDB and SQLite. Timestamps have millisecond precision and are always
 * set in code, never by a database default (multi-row inserts on the mysql driver mis-map returned defaults).
 */
export function IdColumn(): PropertyDecorator {
  return PrimaryColumn({ type: 'varchar', length: 24 });
}

export function RefColumn(options: Pick<ColumnOptions, 'nullable' | 'name'> = {}): PropertyDecorator {
  return Column({ type: 'varchar', length: 24, ...options });
}

export function DateTimeColumn(options: Pick<ColumnOptions, 'nullable' | 'name'> = {}): PropertyDecorator {
  return Column({ type: 'datetime', precision: 3, ...options });
}

export function EnumColumn(
  values: object,
  options: Pick<ColumnOptions, 'nullable' | 'name' | 'default'> = {},
): PropertyDecorator {
  return Column({ type: 'simple-enum', enum: values, ...options });
}

const codePointColumns = new WeakMap<object, Set<string>>();

/**
 * Short text compared and ordered by code point on both families (SQLite's default BINARY collation; utf8mb4_bin on
 * the MySQL family, set per data source by `initializeDataSource`): for values folded in code, whose ranges must mean
 * the same on both (a case- or accent-insensitive collation would make distinct values equal).
 */
export function CodePointTextColumn(
  length: number,
  options: Pick<ColumnOptions, 'nullable' | 'name' | 'primary'> = {},
): PropertyDecorator {
  const column = Column({ type: 'varchar', length, ...options });
  return (target, propertyKey) => {
    const properties = codePointColumns.get(target.constructor) ?? new Set<string>();
    properties.add(String(propertyKey));
    codePointColumns.set(target.constructor, properties);
    column(target, propertyKey);
  };
}

/** Whether the entity's property was declared with `CodePointTextColumn`. */
export function isCodePointColumn(target: unknown, propertyName: string): boolean {
  return typeof target === 'function' && (codePointColumns.get(target)?.has(propertyName) ?? false);
}

export function TextColumn(length: number, options: Pick<ColumnOptions, 'nullable' | 'name'> = {}): PropertyDecorator {
  return Column({ type: 'varchar', length, ...options });
}

/** Unbounded text: TEXT on SQLite, LONGTEXT on the MySQL family (widened per data source: `initializeDataSource`). */
export function LongTextColumn(options: Pick<ColumnOptions, 'nullable' | 'name'> = {}): PropertyDecorator {
  return Column({ type: 'text', ...options });
}

export function JsonColumn(options: Pick<ColumnOptions, 'nullable' | 'name'> = {}): PropertyDecorator {
  return Column({ type: 'simple-json', ...options });
}

export function BoolColumn(options: Pick<ColumnOptions, 'name' | 'default'> = {}): PropertyDecorator {
  return Column({ type: 'boolean', ...options });
}
