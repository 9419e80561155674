import {
  Kind,
  getNamedType,
  getOperationAST,
  isAbstractType,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { ApiScope, hasScope } from '@svc/kit';
import type { GatewayContext } from '../context';

type Data = Record<string, unknown>;

/**
 * Nulls every field marked @pii in the public SDL unless the caller holds PII_READ. It walks the result along the
 * operation (aliases, fragments and lists included), so no resolver can forget it.
 */
export function maskPii(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  data: Data,
  pii: Set<string>,
): void {
  const operation = getOperationAST(document, operationName ?? undefined);
  if (!operation) return;
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!root) return;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);

  const applies = (typeCondition: string | undefined, type: GraphQLObjectType): boolean => {
    if (!typeCondition || typeCondition === type.name) return true;
    const condition = schema.getType(typeCondition);
    return condition !== undefined && isAbstractType(condition) && schema.isSubType(condition, type);
  };

  const walk = (value: unknown, type: GraphQLObjectType, selectionSet: SelectionSetNode): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item, type, selectionSet);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const object = value as Data;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (applies(selection.typeCondition?.name.value, type)) walk(object, type, selection.selectionSet);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment && applies(fragment.typeCondition.name.value, type)) walk(object, type, fragment.selectionSet);
        continue;
      }
      const key = selection.alias?.value ?? selection.name.value;
      if (!(key in object)) continue;
      if (pii.has(`${type.name}.${selection.name.value}`)) {
        object[key] = null;
        continue;
      }
      const fieldType = type.getFields()[selection.name.value]?.type;
      const named = fieldType ? getNamedType(fieldType) : undefined;
      if (selection.selectionSet && named && isObjectType(named)) walk(object[key], named, selection.selectionSet);
    }
  };
  walk(data, root, operation.selectionSet);
}

export function usePiiMasking(pii: Set<string>): GatewayPlugin {
  return {
    onExecute({ args }) {
      const principal = (args.contextValue as GatewayContext).principal;
      if (principal && hasScope(principal, ApiScope.PII_READ)) return;
      return {
        onExecuteDone({ result }) {
          if ('data' in result && result.data)
            maskPii(args.schema, args.document, args.operationName, result.data as Data, pii);
        },
      };
    },
  };
}
