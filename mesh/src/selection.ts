import {
  Kind,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';

type Fragments = Record<string, FragmentDefinitionNode>;

const name = (value: string) => ({ kind: Kind.NAME, value }) as const;
const selectionSet = (selections: FieldNode[]): SelectionSetNode => ({ kind: Kind.SELECTION_SET, selections });
export const field = (fieldName: string, set?: SelectionSetNode): FieldNode => ({
  kind: Kind.FIELD,
  name: name(fieldName),
  ...(set ? { selectionSet: set } : {}),
});

/** How many list levels wrap a type (`[[T!]]!` has 2), so a public list is never mapped onto a raw object. */
function listDepth(type: GraphQLOutputType): number {
  let depth = 0;
  for (let current = type; ;) {
    if (isNonNullType(current)) current = current.ofType;
    else if (isListType(current)) {
      depth += 1;
      current = current.ofType as GraphQLOutputType;
    } else return depth;
  }
}

/**
 * The sub-selections of each field name under these selection sets, through fragments and inline fragments (their
 * type conditions are ignored: asking for a field a fragment would skip costs a field, never a wrong answer), aliases
 * and `@skip`/`@include` merged into one request per field.
 */
function fieldsByName(sets: readonly SelectionSetNode[], fragments: Fragments): Map<string, SelectionSetNode[]> {
  const fields = new Map<string, SelectionSetNode[]>();
  const seenFragments = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const subs = fields.get(selection.name.value) ?? [];
        if (selection.selectionSet) subs.push(selection.selectionSet);
        fields.set(selection.name.value, subs);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else if (!seenFragments.has(selection.name.value)) {
        seenFragments.add(selection.name.value);
        const fragment = fragments[selection.name.value];
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) walk(set);
  return fields;
}

/**
 * The selection to ask a service for, built from what the client selected on the public type: the same field names
 * (the raw schema is camelCase too, `compose.ts`) without aliases, fragments or `__typename`. Undefined when the
 * public selection does not map onto the raw type field by field (a route whose `response` reshapes the result, a
 * field the gateway derives from another): the caller then asks for the whole message.
 */
export function delegatedSelection(
  publicType: GraphQLOutputType,
  rawType: GraphQLOutputType,
  sets: readonly SelectionSetNode[],
  fragments: Fragments,
): SelectionSetNode | undefined {
  const publicNamed = getNamedType(publicType);
  const rawNamed = getNamedType(rawType);
  if (listDepth(publicType) !== listDepth(rawType) || !isObjectType(publicNamed) || !isObjectType(rawNamed))
    return undefined;
  const rawFields = rawNamed.getFields();
  const publicFields = publicNamed.getFields();
  const selections: FieldNode[] = [];
  for (const [fieldName, subs] of fieldsByName(sets, fragments)) {
    if (fieldName.startsWith('__')) continue;
    const publicField = publicFields[fieldName];
    const rawField = rawFields[fieldName];
    if (!publicField || !rawField) return undefined;
    if (isLeafType(getNamedType(publicField.type))) {
      if (!isLeafType(getNamedType(rawField.type)) || listDepth(publicField.type) !== listDepth(rawField.type))
        return undefined;
      selections.push(field(fieldName));
      continue;
    }
    const inner = delegatedSelection(publicField.type, rawField.type, subs, fragments);
    if (!inner) return undefined;
    selections.push(field(fieldName, inner));
  }
  // An object needs at least one field; a client asking only for `__typename` still gets its answer.
  return selectionSet(selections.length ? selections : [field('__typename')]);
}

/** Every field of a raw type, to the depth limit: what a route whose result the gateway reshapes asks for. */
export function wholeSelection(type: GraphQLOutputType, depth = 0): SelectionSetNode | undefined {
  const named = getNamedType(type);
  if (!isObjectType(named) || depth > 6) return undefined;
  const selections: FieldNode[] = [];
  for (const inner of Object.values(named.getFields())) {
    if (isLeafType(getNamedType(inner.type))) selections.push(field(inner.name));
    else {
      const set = wholeSelection(inner.type, depth + 1);
      if (set) selections.push(field(inner.name, set));
    }
  }
  return selectionSet(selections);
}

/**
 * Remembers the delegated selection of each root field node: Yoga caches parsed documents, so a repeated operation
 * brings the same nodes and the selection is built once per (field, selection). Entries go with their document.
 */
export class SelectionCache<T> {
  private readonly byNode = new WeakMap<FieldNode, { nodes: readonly FieldNode[]; selection: T }>();

  constructor(private readonly build: (sets: SelectionSetNode[], fragments: Fragments) => T) {}

  /** `nodes` and `fragments` as in the resolver's `info`; fragments belong to the nodes' document. */
  get(nodes: readonly FieldNode[], fragments: Fragments): T {
    const first = nodes[0];
    const sets = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
    if (!first) return this.build(sets, fragments);
    const cached = this.byNode.get(first);
    // The same first node can come with other sibling nodes (`@include` on a repeated root field): compare them all.
    if (cached && cached.nodes.length === nodes.length && cached.nodes.every((node, i) => node === nodes[i]))
      return cached.selection;
    const selection = this.build(sets, fragments);
    this.byNode.set(first, { nodes: [...nodes], selection });
    return selection;
  }
}
