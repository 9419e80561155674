import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { ResponseFields } from '@svc/kit';

/**
 * The response fields a root field's selection reads, as the paths of a field mask (docs/decisions/0290): the public
 * types of a route without a `response` mapping are its proto message field for field (mesh/test/route-calls.test.ts
 * checks the generated messages have the public shapes), so a selected field's path is the proto field's. Fragments
 * are followed; `@skip` and `@include` are not evaluated, so the mask may name a field the answer leaves out (asking
 * for more is harmless) but never misses one it shows. `__typename` reads no field. An object field selected with nothing under it but
 * `__typename` is named itself, so the service still answers whether it is there.
 */
function pathsOf(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  prefix: string,
  into: Set<string>,
  visiting: Set<string>,
  budget: { selections: number },
): void {
  for (const selection of selectionSet.selections) {
    budget.selections -= 1;
    if (into.size > MAX_PATHS || budget.selections < 0) return;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      pathsOf(selection.selectionSet, fragments, prefix, into, visiting, budget);
    } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      const fragment = fragments[name];
      // Validation refuses fragment cycles; the guard keeps an unvalidated document from looping here.
      if (!fragment || visiting.has(name)) continue;
      visiting.add(name);
      pathsOf(fragment.selectionSet, fragments, prefix, into, visiting, budget);
      visiting.delete(name);
    } else if (selection.name.value !== '__typename') {
      const path = `${prefix}${selection.name.value}`;
      const size = into.size;
      if (selection.selectionSet) pathsOf(selection.selectionSet, fragments, `${path}.`, into, visiting, budget);
      if (into.size === size) into.add(path);
    }
  }
}

/**
 * Past this many paths, or this many bytes of header, a call carries no mask (the service answers every field): a
 * selection that large saves the service little, fragments spread at many places could make it grow far beyond what
 * the document's token limit suggests, and gRPC refuses metadata above 8 KB.
 */
const MAX_PATHS = 256;
const MAX_HEADER_BYTES = 4096;
/** Selections walked, fragments expanded: the same fragment spread twice at each level doubles the walk per level. */
const MAX_SELECTIONS = 4096;

/** Per field node: a document's nodes are the same objects for every request that hits Yoga's parse cache. */
const maskOfNode = new WeakMap<FieldNode, readonly string[] | undefined>();

/** The node's paths, or undefined when they are too many to send. */
function nodePaths(node: FieldNode, fragments: Record<string, FragmentDefinitionNode>): readonly string[] | undefined {
  if (maskOfNode.has(node)) return maskOfNode.get(node);
  const into = new Set<string>();
  const budget = { selections: MAX_SELECTIONS };
  if (node.selectionSet) pathsOf(node.selectionSet, fragments, '', into, new Set(), budget);
  const paths = into.size > MAX_PATHS || budget.selections < 0 ? undefined : [...into];
  maskOfNode.set(node, paths);
  return paths;
}

/**
 * The field mask header value for a root field's nodes (several when the operation selects the same response key
 * more than once; which of them are merged depends on the request's variables, so each node's paths are kept apart and
 * joined per request). Undefined for a field with no sub-selection (a scalar answer has no fields to mask) and for a
 * selection too large to send, which the service then answers in full.
 */
export function responseFieldMask(
  fieldNodes: readonly FieldNode[],
  fragments: Record<string, FragmentDefinitionNode>,
): string | undefined {
  const [first, ...others] = fieldNodes;
  if (!first?.selectionSet) return undefined;
  const each: (readonly string[])[] = [];
  for (const node of fieldNodes) {
    const paths = nodePaths(node, fragments);
    if (!paths) return undefined;
    each.push(paths);
  }
  const paths = others.length ? [...new Set(each.flat())] : (each[0] ?? []);
  if (paths.length > MAX_PATHS) return undefined;
  const header = ResponseFields.header(paths);
  return Buffer.byteLength(header) > MAX_HEADER_BYTES ? undefined : header;
}
