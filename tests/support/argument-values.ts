import { randomBytes } from 'node:crypto';
import {
  getNamedType,
  getNullableType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isRequiredArgument,
  isRequiredInputField,
  isScalarType,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';

/**
 * Values for a root field's arguments generated from their types, so a suite can call every operation of an
 * introspected schema without knowing it: the scope matrix (tests/e2e/scope-matrix.test.ts) and anything else that
 * walks every operation. Only required arguments and required input fields get a value; `overrides` add or replace
 * any other by path.
 */

/** Where a value sits: argument name, then input field names and list indexes. */
export type ValuePath = readonly (string | number)[];

export interface ArgumentValueOptions {
  /**
   * Values by dotted path (`input.internal`, `removePeople`, `files.0`), set after the generated ones; a path may
   * name an optional argument or field, which is then sent too.
   */
  overrides?: Record<string, unknown>;
  /** Chooses a value before the default rules; `undefined` falls through to them. */
  fill?: (path: ValuePath, type: GraphQLInputType) => unknown;
  /** Names of scalars that carry an uploaded file (GraphQL multipart request); default `File` and `Upload`. */
  fileScalars?: readonly string[];
  /** The selection set of the result (`{ data { id } }`); default `{ __typename }` of a composite result. */
  selection?: string;
}

export interface OperationCall {
  /** The GraphQL document: one operation declaring a variable for each argument sent. */
  query: string;
  variables: Record<string, unknown>;
  /**
   * Multipart paths (`variables.file`, `variables.files.0`) that must carry a file; their variable holds null. Empty
   * when a plain JSON request will do.
   */
  files: string[];
}

const DEFAULT_FILE_SCALARS = ['File', 'Upload'];

/** A random 24-hex id: the shape of every id here, naming nothing that exists. */
export function randomId(): string {
  return randomBytes(12).toString('hex');
}

/**
 * A `fill` that gives each argument or input field named like a key of `ids` (`chatId`) that id, and each element of
 * a list named like its plural (`chatIds`) too: calls then reach existing objects instead of ending in NOT_FOUND.
 */
export function fillIdsByName(ids: Record<string, string>): NonNullable<ArgumentValueOptions['fill']> {
  return (path, type) => {
    if (!isScalarType(getNamedType(type)) || isListType(getNullableType(type))) return undefined;
    const last = path[path.length - 1];
    const name = typeof last === 'number' ? String(path[path.length - 2]).replace(/s$/, '') : last;
    return name !== undefined && Object.hasOwn(ids, name) ? ids[name] : undefined;
  };
}

function defaultScalar(name: string): unknown {
  switch (name) {
    case 'Int':
    case 'Float':
      return 1;
    case 'Boolean':
      return false;
    case 'JSON':
      return {};
    case 'DateTime':
      return new Date().toISOString();
    default:
      return randomId(); // String, ID and other custom scalars
  }
}

function valueOf(
  type: GraphQLInputType,
  path: ValuePath,
  options: ArgumentValueOptions,
  files: (string | number)[][],
): unknown {
  const chosen = options.fill?.(path, type);
  if (chosen !== undefined) return chosen;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [valueOf(inner.ofType, [...path, 0], options, files)];
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields());
    // A @oneOf input needs exactly one field: the first.
    const chosenFields = inner.isOneOf ? fields.slice(0, 1) : fields.filter(isRequiredInputField);
    return Object.fromEntries(chosenFields.map((f) => [f.name, valueOf(f.type, [...path, f.name], options, files)]));
  }
  if (isEnumType(inner)) return inner.getValues()[0]?.value;
  if (isScalarType(inner) && (options.fileScalars ?? DEFAULT_FILE_SCALARS).includes(inner.name)) {
    files.push([...path]);
    return null;
  }
  return defaultScalar(inner.name);
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split('.');
  let node: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] as string] = value;
}

/** Values for the field's required arguments (and any `overrides`), keyed by argument name. */
export function argumentValues(
  field: GraphQLField<unknown, unknown>,
  options: ArgumentValueOptions = {},
): { values: Record<string, unknown>; filePaths: string[] } {
  const files: (string | number)[][] = [];
  const values: Record<string, unknown> = {};
  for (const arg of field.args.filter(isRequiredArgument))
    values[arg.name] = valueOf(arg.type, [arg.name], options, files);
  for (const [dotted, value] of Object.entries(options.overrides ?? {})) setPath(values, dotted, value);
  return { values, filePaths: files.map((path) => path.join('.')) };
}

/**
 * A complete call of a root field: the document (selecting only `__typename` of a composite result, which every
 * such type has) and its variables, one per argument sent, so the values travel exactly as generated.
 */
export function operationCall(
  operation: 'query' | 'mutation',
  field: GraphQLField<unknown, unknown>,
  options: ArgumentValueOptions = {},
): OperationCall {
  const { values, filePaths } = argumentValues(field, options);
  const sent = field.args.filter((arg) => arg.name in values);
  const declarations = sent.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
  const argumentList = sent.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = options.selection
    ? ` ${options.selection}`
    : isCompositeType(getNamedType(field.type))
      ? ' { __typename }'
      : '';
  return {
    query: `${operation}${declarations ? `(${declarations})` : ''} { ${field.name}${argumentList ? `(${argumentList})` : ''}${selection} }`,
    variables: values,
    files: filePaths.map((path) => `variables.${path}`),
  };
}
