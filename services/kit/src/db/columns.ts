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
