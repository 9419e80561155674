import { expect } from 'chai';
import { frameUrl } from '../src/frame-url.js';
import { frameBox } from '../src/layout.js';
import { loaderOptions } from '../src/options.js';

const src = 'https://cdn.example.com/widget/loader.js?v=2';

describe('loaderOptions (the <script> data attributes)', () => {
  it('answers null without data-public-key (nothing is mounted)', () => {
    expect(loaderOptions({ dataset: {}, src })).to.equal(null);
    expect(loaderOptions({ dataset: { publicKey: '  ' }, src })).to.equal(null);
  });

  it('defaults data-api to the origin loader.js was loaded from, and hides no attribution', () => {
    expect(loaderOptions({ dataset: { publicKey: 'wpk_1' }, src })).to.deep.equal({
      publicKey: 'wpk_1',
      api: 'https://cdn.example.com',
      hideAttribution: false,
    });
  });

  it("defaults data-api to data-origin's origin when data-origin is given", () => {
    const options = loaderOptions({ dataset: { publicKey: 'wpk_1', origin: 'https://assets.example.net/w/' }, src });
    expect(options?.api).to.equal('https://assets.example.net');
  });

  it('takes data-api as given, without a trailing slash', () => {
    const options = loaderOptions({
      dataset: { publicKey: 'wpk_1', origin: 'https://assets.example.net', api: 'https://api.example.com/inbox/' },
      src,
    });
    expect(options?.api).to.equal('https://api.example.com/inbox');
  });

  it('reads data-hide-attribution as a boolean attribute ("false" is false)', () => {
    const hide = (value: string | undefined) =>
      loaderOptions({ dataset: { publicKey: 'k', hideAttribution: value }, src })?.hideAttribution;
    expect([hide(''), hide('true'), hide('1'), hide('false'), hide(undefined)]).to.deep.equal([
      true,
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('frameUrl (the iframe src and its fragment)', () => {
  const options = { publicKey: 'wpk_a/b', api: 'https://api.example.com', hideAttribution: true };

  it('points at the frame document of widget-api and carries the facts in the fragment', () => {
    const url = new URL(
      frameUrl(options, { host: 'https://shop.example.com', locale: 'pt-BR', config: { status: 'ACTIVE' } }),
    );
    expect(url.origin + url.pathname).to.equal('https://api.example.com/api/web/frame/wpk_a%2Fb');
    expect(url.search).to.equal('');
    expect(Object.fromEntries(new URLSearchParams(url.hash.slice(1)))).to.deep.equal({
      host: 'https://shop.example.com',
      api: 'https://api.example.com',
      locale: 'pt-BR',
      hideAttribution: '1',
      config: '{"status":"ACTIVE"}',
    });
  });

  it('leaves out an empty locale, a shown attribution and an absent config', () => {
    const url = new URL(
      frameUrl({ ...options, hideAttribution: false }, { host: 'https://shop.example.com', locale: '' }),
    );
    expect([...new URLSearchParams(url.hash.slice(1)).keys()]).to.deep.equal(['host', 'api']);
  });
});

describe('frameBox (the iframe size)', () => {
  const desktop = { width: 1280, height: 800 };
  const phone = { width: 390, height: 844 };

  it('is what the widget asked, rounded up, on a large viewport', () => {
    expect(frameBox({ width: 375.5, height: 620 }, desktop, true)).to.deep.equal({
      width: 376,
      height: 620,
      fullScreen: false,
    });
  });

  it('is clamped to the viewport', () => {
    expect(frameBox({ width: 2000, height: 900 }, desktop, false)).to.deep.equal({
      width: 1280,
      height: 800,
      fullScreen: false,
    });
  });

  it('covers a viewport narrower than 480 px when the panel is open, not when closed', () => {
    expect(frameBox({ width: 376, height: 620 }, phone, true)).to.deep.equal({ ...phone, fullScreen: true });
    expect(frameBox({ width: 88, height: 88 }, phone, false)).to.deep.equal({
      width: 88,
      height: 88,
      fullScreen: false,
    });
  });
});
