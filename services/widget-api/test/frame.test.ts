import { expect } from 'chai';
import { WebIntegration } from '@svc/proto/channels/v1';
import { frameDocument } from '../src/http/frame';

const integration = WebIntegration.fromPartial({
  publicKey: 'wpk_"><script>',
  defaultLocale: 'pt-BR',
  allowedOrigins: ['https://shop.example.com', 'file:///x'],
});

const directives = (policy: string) =>
  Object.fromEntries(policy.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));

describe('WidgetApi.frameDocument', () => {
  it('loads widget.js as a module from its own origin and renders <svc-widget frame public-key>', () => {
    const { html, headers } = frameDocument(integration, '', 'n0nce');
    expect(html).to.contain('<script type="module" src="/widget/widget.js"></script>');
    expect(html).to.contain('<svc-widget frame public-key="wpk_&#34;&#62;&#60;script&#62;"></svc-widget>');
    expect(html).to.contain('<html lang="pt-BR">');
    expect(directives(headers['content-security-policy'])).to.include({
      'frame-ancestors': 'https://shop.example.com',
      'script-src': "'self'",
      'style-src': "'self' 'nonce-n0nce'",
    });
  });

  it("loads it from WIDGET_ORIGIN when set, and allows only that origin's scripts besides its own", () => {
    const { html, headers } = frameDocument(integration, 'https://CDN.example.net/assets/', 'n0nce');
    expect(html).to.contain('<script type="module" src="https://cdn.example.net/widget/widget.js"></script>');
    expect(directives(headers['content-security-policy'])['script-src']).to.equal("'self' https://cdn.example.net");
  });

  it('gives Stencil the nonce its style elements need, a fresh one per response', () => {
    const first = frameDocument(integration, '');
    const nonce = /'nonce-([^']+)'/.exec(first.headers['content-security-policy'])?.[1];
    expect(nonce).to.match(/^[A-Za-z0-9+/]{22}==$/);
    expect(first.html).to.contain(`<meta name="csp-nonce" content="${nonce}">`);
    expect(first.html).to.contain(`<style nonce="${nonce}">`);
    expect(frameDocument(integration, '').headers['content-security-policy']).not.to.contain(nonce);
  });

  it('is framed by no one when the integration allows no origin', () => {
    const closed = frameDocument(WebIntegration.fromPartial({ publicKey: 'wpk_1' }), '');
    expect(closed.headers['content-security-policy']).to.match(/^frame-ancestors 'none'; /);
  });
});
