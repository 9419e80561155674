import { expect } from 'chai';
import { clientAddress } from '../src/client-address';

describe('gateway.clientAddress', () => {
  it('ignores X-Forwarded-For unless proxies are trusted', () => {
    expect(clientAddress('10.0.0.5', '203.0.113.9', 0)).to.equal('10.0.0.5');
  });

  it('takes the address the outermost trusted proxy saw, never what the client wrote before it', () => {
    expect(clientAddress('10.0.0.5', '203.0.113.9', 1)).to.equal('203.0.113.9');
    expect(clientAddress('10.0.0.5', '1.1.1.1, 203.0.113.9', 1), 'a forged first entry').to.equal('203.0.113.9');
    expect(clientAddress('10.0.0.5', '1.1.1.1, 203.0.113.9, 10.0.0.7', 2)).to.equal('203.0.113.9');
  });

  it('falls back to the leftmost known address when the chain is shorter than the trusted hops', () => {
    expect(clientAddress('10.0.0.5', null, 1)).to.equal('10.0.0.5');
    expect(clientAddress('10.0.0.5', '203.0.113.9', 3)).to.equal('203.0.113.9');
  });
});
