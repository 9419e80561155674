import {
  Kind,
  getOperationAST,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  getArgumentValues,
} from 'graphql';
import { type ApiScope, OrgKind, PrincipalKind, hasScope, type Principal } from '@svc/kit';
import type { OperationRule } from './operations-table';

export interface Denial {
  status: 401 | 403;
  code: 'UNAUTHENTICATED' | 'FORBIDDEN';
  message: string;
  scope?: string;
}

/** The value at `path` (argument name, then input field names), undefined where any step is missing. */
function valueAt(args: Record<string, unknown>, path: readonly string[]): unknown {
  let value: unknown = args;
  for (const key of path)
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

export interface RootFields {
  type: 'query' | 'mutation' | 'subscription';
  fields: readonly FieldNode[];
}

/**
 * Root fields by document and operation name: Yoga's parse cache hands a repeated operation the same document, so
 * the auth and cost plugins walk each document once rather than on every request. Entries go with their document.
 */
const rootFieldsByDocument = new WeakMap<DocumentNode, Map<string | null, RootFields | undefined>>();

/** The root fields an operation selects, through fragments and inline fragments (computed once per document). */
export function rootFields(document: DocumentNode, operationName?: string | null): RootFields | undefined {
  let byName = rootFieldsByDocument.get(document);
  if (!byName) {
    byName = new Map();
    rootFieldsByDocument.set(document, byName);
  }
  const key = operationName ?? null;
  if (byName.has(key)) return byName.get(key);
  const root = collectRootFields(document, operationName);
  byName.set(key, root);
  return root;
}

function collectRootFields(document: DocumentNode, operationName?: string | null): RootFields | undefined {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const fields: FieldNode[] = [];
  const seen = new Set<string>();
  const collect = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) fields.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else if (!seen.has(selection.name.value)) {
        seen.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  collect(operation.selectionSet);
  return { type: operation.operation, fields };
}

/** Whether the credential-less request is only a login (the one operation that needs no credentials). */
export function isPublicOnly(
  document: DocumentNode,
  operationName: string | null | undefined,
  table: Map<string, OperationRule>,
): boolean {
  const root = rootFields(document, operationName);
  if (!root) return false;
  const isPublic = (f: FieldNode) => table.get(f.name.value)?.requirement.kind === 'public';
  return root.fields.some(isPublic) && root.fields.every((f) => f.name.value === '__typename' || isPublic(f));
}

/**
 * Checks every root field of the operation against the table before anything executes. One refused field refuses
 * the whole request, so nothing partial ever runs.
 */
export function authorize(
  principal: Principal,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | undefined,
  schema: GraphQLSchema,
  table: Map<string, OperationRule>,
  options: { introspection: boolean },
): Denial | undefined {
  const root = rootFields(document, operationName);
  if (!root) return undefined; // graphql validation reports the missing/ambiguous operation
  const rootType =
    root.type === 'query' ? schema.getQueryType() : root.type === 'mutation' ? schema.getMutationType() : undefined;
  for (const field of root.fields) {
    const name = field.name.value;
    if (name === '__typename') continue;
    if (name === '__schema' || name === '__type') {
      if (options.introspection) continue;
      return forbidden('introspection is disabled on this gateway');
    }
    const rule = table.get(name);
    if (!rule || (rule.kind === 'Q') !== (root.type === 'query'))
      return forbidden(`${name} is not an operation of this API`);
    const requirement = rule.requirement;
    if (requirement.kind === 'public') continue;
    if (requirement.kind === 'dashboard-only' || requirement.kind === 'session') {
      if (principal.kind !== PrincipalKind.MEMBER_SESSION) {
        return forbidden(`${name} is available only from a dashboard session, never with an API key`);
      }
      continue;
    }
    if (rule.techProviderOnly && principal.orgKind !== OrgKind.TECH_PROVIDER) {
      return forbidden(`${name} is available only to TECH_PROVIDER orgs`, requirement.scope);
    }
    if (!hasScope(principal, requirement.scope as ApiScope))
      return forbidden(`${name} needs the ${requirement.scope} scope`, requirement.scope);
    const extra = rule.argumentScope;
    const fieldDef = rootType?.getFields()[name];
    if (extra && fieldDef) {
      let args: Record<string, unknown>;
      try {
        args = getArgumentValues(fieldDef, field, variables ?? {});
      } catch {
        continue; // invalid arguments: validation reports them as BAD_USER_INPUT
      }
      if (valueAt(args, extra.path) === extra.value && !hasScope(principal, extra.scope as ApiScope)) {
        return forbidden(`${name} with these arguments needs the ${extra.scope} scope`, extra.scope);
      }
    }
  }
  return undefined;
}

function forbidden(message: string, scope?: string): Denial {
  return { status: 403, code: 'FORBIDDEN', message, ...(scope ? { scope } : {}) };
}
