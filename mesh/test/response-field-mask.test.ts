import { expect } from 'chai';
import { Kind, parse, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { responseFieldMask } from '../src/response-field-mask';

/** The root field nodes of an operation with that response key, and the document's fragments. */
function rootOf(source: string, key: string) {
  const document = parse(source);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const fragments = Object.fromEntries(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const nodes = (operation?.selectionSet.selections ?? []).filter(
    (s): s is FieldNode => s.kind === Kind.FIELD && (s.alias ?? s.name).value === key,
  );
  return { nodes, fragments };
}

const maskOf = (source: string, key: string) => {
  const { nodes, fragments } = rootOf(source, key);
  return responseFieldMask(nodes, fragments)?.split(',');
};

describe('gateway: the response field mask of a selection', () => {
  it('names each selected leaf by its path, not its alias', () => {
    expect(
      maskOf('{ getMessages(chatId: "c") { data { id: _id text edits { text } } hasNext } }', 'getMessages'),
    ).to.deep.equal(['data._id', 'data.text', 'data.edits.text', 'hasNext']);
  });

  it('follows fragments and inline fragments, and reads nothing for __typename', () => {
    const source = `{ getMessages(chatId: "c") { __typename data { ...M ... on Message { labelIds } } } }
      fragment M on Message { reactions { ...R } }
      fragment R on MessageReaction { emoji __typename }`;
    expect(maskOf(source, 'getMessages')).to.deep.equal(['data.reactions.emoji', 'data.labelIds']);
  });

  it('names an object selected for its __typename alone, so its presence is still answered', () => {
    expect(maskOf('{ getMessages(chatId: "c") { data { location { __typename } } } }', 'getMessages')).to.deep.equal([
      'data.location',
    ]);
  });

  it('keeps fields under @skip and @include: more than shown is harmless, less is not', () => {
    expect(
      maskOf(
        'query($x: Boolean!) { getMessages(chatId: "c") { data { text edits @include(if: $x) { text } } } }',
        'getMessages',
      ),
    ).to.deep.equal(['data.text', 'data.edits.text']);
  });

  it('joins every node of a response key selected more than once', () => {
    const source =
      '{ getMessages(chatId: "c") { data { text } } getMessages(chatId: "c") { data { edits { text } } } }';
    expect(maskOf(source, 'getMessages')).to.deep.equal(['data.text', 'data.edits.text']);
    const first = rootOf(source, 'getMessages');
    // The first node alone (another request's variables may skip the second) is not the cached union.
    expect(responseFieldMask(first.nodes.slice(0, 1), first.fragments)).to.equal('data.text');
  });

  it('sends no mask, so the service answers every field, for a selection too large to send', () => {
    const wide = Array.from({ length: 300 }, (_, i) => `f${i}`).join(' ');
    expect(maskOf(`{ getMessages(chatId: "c") { data { ${wide} } } }`, 'getMessages')).to.equal(undefined);
    const long = Array.from({ length: 100 }, (_, i) => `${'x'.repeat(60)}${i}`).join(' ');
    expect(maskOf(`{ getMessages(chatId: "c") { data { ${long} } } }`, 'getMessages')).to.equal(undefined);
  });

  it('stops walking fragments that double at every level, and sends no mask', () => {
    // F0 is spread twice in F1, F1 twice in F2 …: 2^20 walks of few distinct paths.
    const levels = Array.from(
      { length: 20 },
      (_, i) => `fragment F${i + 1} on Message { a: edits { ...F${i} } b: edits { ...F${i} } }`,
    );
    const source = `{ getMessages(chatId: "c") { data { ...F20 } } } fragment F0 on MessageEdit { text } ${levels.join(' ')}`;
    // Without the walk's budget this would walk 2^21 selections and send the one distinct path they make.
    expect(maskOf(source, 'getMessages')).to.equal(undefined);
  });

  it('sends no mask for a scalar answer', () => {
    expect(maskOf('mutation { closeChat(chatId: "c") }', 'closeChat')).to.equal(undefined);
  });
});
