import { expect } from 'chai';
import { normaliseOrigin, originAllowed } from '../src/http/cors';

describe('WidgetApi.cors', () => {
  const allowed = ['https://shop.example.com', 'http://localhost:3000'];

  it('allows the integration origins and the widget origin, ignoring case and default ports', () => {
    expect(originAllowed('https://SHOP.example.com:443', allowed, '')).to.equal(true);
    expect(originAllowed('http://localhost:3000', allowed, '')).to.equal(true);
    expect(originAllowed('https://cdn.example.net', allowed, 'https://cdn.example.net')).to.equal(true);
  });

  it('refuses other origins, other schemes or ports, and origins that are not URLs', () => {
    expect(originAllowed('https://evil.example.com', allowed, '')).to.equal(false);
    expect(originAllowed('http://shop.example.com', allowed, '')).to.equal(false);
    expect(originAllowed('http://localhost:3001', allowed, '')).to.equal(false);
    expect(originAllowed('null', allowed, '')).to.equal(false);
    expect(normaliseOrigin('file:///etc/passwd')).to.equal(undefined);
  });
});
