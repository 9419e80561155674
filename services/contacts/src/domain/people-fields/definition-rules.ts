import { InvalidArgument } from '@svc/kit';
import { PEOPLE_FIELD_TYPES, type PeopleFieldDefinitionRow, type PeopleFieldType } from '../../entities/people-field';

export const KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** A bound on what every write loads and every contact view carries. */
export const MAX_DEFINITIONS_PER_ORG = 200;
export const MAX_OPTIONS = 200;
const OPTION_MAX = 200;
const LABEL_MAX = 200;

/** Types whose values pick from `options`. */
export const CHOICE_TYPES: readonly PeopleFieldType[] = ['SELECT', 'MULTI_SELECT'];
/** Types with too few distinct values for `unique` to mean anything. */
const NOT_UNIQUE_TYPES: readonly PeopleFieldType[] = ['BOOLEAN', 'SELECT', 'MULTI_SELECT'];

export function optionsOf(definition: Pick<PeopleFieldDefinitionRow, 'options'>): string[] {
  return JSON.parse(definition.options) as string[];
}

export function checkKey(key: string): string {
  if (!KEY_PATTERN.test(key))
    throw new InvalidArgument('key must match ^[a-z][a-z0-9_]{0,63}$ (lower-case letter first)', { field: 'key' });
  return key;
}

export function checkLabel(label: string): string {
  const text = label.trim();
  if (!text || text.length > LABEL_MAX)
    throw new InvalidArgument(`label must be 1-${LABEL_MAX} characters`, { field: 'label' });
  return text;
}

export function checkType(type: string): PeopleFieldType {
  const found = PEOPLE_FIELD_TYPES.find((known) => known === type);
  if (!found) throw new InvalidArgument(`type must be one of ${PEOPLE_FIELD_TYPES.join(', ')}`, { field: 'type' });
  return found;
}

/** Options of a choice type: 1–200 distinct non-empty texts, trimmed; no options for other types. */
export function checkOptions(type: PeopleFieldType, options: readonly string[]): string[] {
  if (!CHOICE_TYPES.includes(type)) {
    if (options.length) throw new InvalidArgument(`options are only for SELECT and MULTI_SELECT`, { field: 'options' });
    return [];
  }
  const trimmed = options.map((option) => option.trim());
  if (!trimmed.length || trimmed.length > MAX_OPTIONS)
    throw new InvalidArgument(`${type} needs 1-${MAX_OPTIONS} options`, { field: 'options' });
  if (trimmed.some((option) => !option || option.length > OPTION_MAX || option.includes(',')))
    throw new InvalidArgument(`each option must be 1-${OPTION_MAX} characters without a comma`, { field: 'options' });
  if (new Set(trimmed).size !== trimmed.length)
    throw new InvalidArgument('options must be distinct', { field: 'options' });
  return trimmed;
}

export function checkUnique(type: PeopleFieldType, unique: boolean): boolean {
  if (unique && NOT_UNIQUE_TYPES.includes(type))
    throw new InvalidArgument(`a ${type} field cannot be unique`, { field: 'unique' });
  return unique;
}
