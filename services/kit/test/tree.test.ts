import { expect } from 'chai';
import { childrenByParent, depthsOf, subtreeIds } from '../src/tree';

describe('kit tree: rows with a parent reference', () => {
  const rows = [
    { id: 'a', parentId: null },
    { id: 'b', parentId: 'a' },
    { id: 'c', parentId: 'b' },
    { id: 'd', parentId: 'a' },
    { id: 'e', parentId: null },
  ];

  it('lists a sub-tree root first, then level by level', () => {
    expect(subtreeIds(rows, 'a')).to.deep.equal(['a', 'b', 'd', 'c']);
    expect(subtreeIds(rows, 'c')).to.deep.equal(['c']);
    expect(
      childrenByParent(rows)
        .get(null)
        ?.map((row) => row.id),
    ).to.deep.equal(['a', 'e']);
  });

  it('gives each row its depth, counting a row whose parent is missing as a top one', () => {
    const depths = depthsOf([...rows, { id: 'orphan', parentId: 'gone' }]);
    expect(Object.fromEntries(depths)).to.deep.equal({ a: 0, b: 1, c: 2, d: 1, e: 0, orphan: 0 });
  });

  it('ends on a cycle stored by mistake instead of looping', () => {
    const depths = depthsOf([
      { id: 'x', parentId: 'y' },
      { id: 'y', parentId: 'x' },
    ]);
    expect([...depths.keys()].sort()).to.deep.equal(['x', 'y']);
  });
});
