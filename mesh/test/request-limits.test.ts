import { expect } from 'chai';
import { countTokens } from '../src/plugins/request-limits';

describe('gateway.countTokens', () => {
  it('counts every lexical token and every comment, but not whitespace', () => {
    expect(countTokens('{ __typename }', 100)).to.equal(3);
    expect(countTokens(`# one\n# two\n{ __typename }${' '.repeat(10_000)}`, 100)).to.equal(5);
  });

  it('passes the limit on a document of comments alone', () => {
    expect(countTokens('#\n'.repeat(100_000), 10)).to.be.greaterThan(10);
  });
});
