import { expect } from 'chai';
import { Metadata } from '@grpc/grpc-js';
import { FIELD_MASK_HEADER, ResponseFields } from '../src';

describe('kit: response fields (a call’s field mask)', () => {
  const withMask = (value: string) => {
    const metadata = new Metadata();
    metadata.set(FIELD_MASK_HEADER, value);
    return ResponseFields.fromMetadata(metadata);
  };

  it('reads every field without a mask', () => {
    const fields = ResponseFields.fromMetadata(new Metadata());
    expect(fields.reads('anything')).to.equal(true);
    expect(fields.under('data').reads('edits')).to.equal(true);
  });

  it('reads a masked field, its ancestors and everything under it, and nothing else', () => {
    const fields = withMask('data._id,data.edits.text,nextCursor');
    expect(
      ['data', 'data._id', 'data.edits', 'data.edits.text', 'nextCursor'].map((p) => fields.reads(p)),
    ).to.deep.equal([true, true, true, true, true]);
    expect(['data.reactions', 'data.edit', 'hasNext', 'data.edits.editedAt'].map((p) => fields.reads(p))).to.deep.equal(
      [false, false, false, false],
    );
    expect(withMask('data').reads('data.edits.text')).to.equal(true);
  });

  it('narrows to a sub-message, relative to it', () => {
    const items = withMask('data._id,data.labelIds,hasNext').under('data');
    expect([items.reads('_id'), items.reads('labelIds'), items.reads('edits'), items.reads('hasNext')]).to.deep.equal([
      true,
      true,
      false,
      false,
    ]);
    expect(withMask('data').under('data').reads('edits')).to.equal(true);
    expect(withMask('hasNext').under('data').reads('_id')).to.equal(false);
  });

  it('an empty mask reads nothing (a selection of __typename alone)', () => {
    expect(withMask('').reads('_id')).to.equal(false);
  });

  it('writes the header its reader parses', () => {
    expect(withMask(ResponseFields.header(['a.b', 'c'])).reads('a.b')).to.equal(true);
  });
});
