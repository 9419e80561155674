import { Kind, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { ResponseFields } from '@svc/kit';

/**
 * The response fields a root field's selection reads, as the paths of a field mask (docs/decisions/0290): the public
 * types of a route without a `response` mapping are its proto message field for field (mesh/test/route-calls.test.ts
 * checks the generated messages have the public shapes), so a selected field's path is the proto field's. Fragments are followed; `@skip` and
 * `@include` are not evaluated, so the mask may name a field the answer leaves out (asking for more is harmless) but
 * never misses one it shows. `__typename` reads no field. An object field selected with nothing under it but
 * `__typename` is named itself, so the service still answers whether it is there.
 */
function pathsOf(
  selectionSet: SelectionSetNode,
  fragments: Record<string, FragmentDefinitionNode>,
  prefix: string,
  into: Set<string>,
  visiting: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      pathsOf(selection.selectionSet, fragments, prefix, into, visiting);
    } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      const fragment = fragments[name];
      // Validation refuses fragment cycles; the guard keeps an unvalidated document from looping here.
      if (!fragment || visiting.has(name)) continue;
      visiting.add(name);
      pathsOf(fragment.selectionSet, fragments, prefix, into, visiting);
      visiting.delete(name);
    } else if (selection.name.value !== '__typename') {
      const path = `${prefix}${selection.name.value}`;
      const size = into.size;
      if (selection.selectionSet) pathsOf(selection.selectionSet, fragments, `${path}.`, into, visiting);
      if (into.size === size) into.add(path);
    }
  }
}

/** Per field node: a document's nodes are the same objects for every request that hits Yoga's parse cache. */
const maskOfNode = new WeakMap<FieldNode, readonly string[]>();

function nodePaths(node: FieldNode, fragments: Record<string, FragmentDefinitionNode>): readonly string[] {
  let paths = maskOfNode.get(node);
  if (!paths) {
    const into = new Set<string>();
    if (node.selectionSet) pathsOf(node.selectionSet, fragments, '', into, new Set());
    paths = [...into];
    maskOfNode.set(node, paths);
  }
  return paths;
}

/**
 * The field mask header value for a root field's nodes (several when the operation selects the same response key
 * more than once; which of them are merged depends on the request's variables, so each node's paths are kept apart and
 * joined per request). Undefined for a field with no sub-selection: a scalar answer has no fields to mask.
 */
export function responseFieldMask(
  fieldNodes: readonly FieldNode[],
  fragments: Record<string, FragmentDefinitionNode>,
): string | undefined {
  const [first, ...others] = fieldNodes;
  if (!first?.selectionSet) return undefined;
  const paths = others.length
    ? [...new Set(fieldNodes.flatMap((node) => nodePaths(node, fragments)))]
    : nodePaths(first, fragments);
  return ResponseFields.header(paths);
}
