import { expect } from 'chai';
import { InvalidArgument, MAX_PAGE_SIZE, pageLimit } from '../src';

describe('pageLimit', () => {
  it('takes the default only when no limit is set', () => {
    expect(pageLimit(undefined, 30, 'input.limit')).to.equal(30);
    expect(pageLimit(1, 30, 'input.limit')).to.equal(1);
    expect(pageLimit(MAX_PAGE_SIZE, 30, 'input.limit')).to.equal(MAX_PAGE_SIZE);
  });

  for (const limit of [0, -1, MAX_PAGE_SIZE + 1, 2.5])
    it(`refuses ${limit} as BAD_USER_INPUT naming the field`, () => {
      let thrown: unknown;
      try {
        pageLimit(limit, 30, 'pagination.first');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(InvalidArgument);
      expect((thrown as InvalidArgument).code).to.equal('BAD_USER_INPUT');
      expect((thrown as InvalidArgument).details).to.deep.equal({ field: 'pagination.first' });
    });
});
