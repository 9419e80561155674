import { randomBytes } from 'node:crypto';
import type { WebIntegration } from '@svc/proto/channels/v1';
import { normaliseOrigin } from './cors';

/** Where the frame document loads the widget from: `{WIDGET_ORIGIN}/widget/widget.js`, or its own origin's. */
export const WIDGET_SCRIPT_PATH = '/widget/widget.js';

/**
 * The frame document of an integration (decisions 0089, 0112): the page loader.js puts in its iframe. Browsers
 * enforce its `Content-Security-Policy: frame-ancestors`, so only the integration's allowed origins can embed it;
 * none allowed: `'none'`. It loads widget.js as a module from the widget's origin (`WIDGET_ORIGIN`, else its own) and
 * renders `<svc-widget frame>`, whose frame glue reads the rest (host origin, API, locale) from the URL's fragment.
 *
 * The policy: scripts only from here and the widget's origin; styles from here plus the `<style>` elements carrying
 * this response's nonce (Stencil puts the nonce of `<meta name="csp-nonce">` on the ones it creates; shadow-DOM styles
 * are constructable stylesheets, which the policy does not govern); images also from https (agents' avatars), data:
 * and blob: (upload previews); every request (API, SSE, media) to its own origin.
 */
export function frameDocument(integration: WebIntegration, widgetOrigin: string, nonce = newNonce()) {
  const ancestors = integration.allowedOrigins.map(normaliseOrigin).filter((origin): origin is string => !!origin);
  const frameAncestors = ancestors.length ? ancestors.join(' ') : "'none'";
  const origin = widgetOrigin ? (normaliseOrigin(widgetOrigin) ?? '') : '';
  const publicKey = escapeHtml(integration.publicKey);
  const locale = escapeHtml(integration.defaultLocale || 'en');
  const policy = [
    `frame-ancestors ${frameAncestors}`,
    "default-src 'self'",
    `script-src 'self'${origin ? ` ${origin}` : ''}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' https: data: blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ];
  return {
    headers: {
      'content-security-policy': policy.join('; '),
      'cache-control': 'no-cache',
      'referrer-policy': 'strict-origin',
      'x-content-type-options': 'nosniff',
    },
    html:
      `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">` +
      `<meta name="csp-nonce" content="${nonce}"><title>Chat</title>` +
      `<style nonce="${nonce}">html,body{margin:0;background:transparent}</style>` +
      `<script type="module" src="${origin}${WIDGET_SCRIPT_PATH}"></script></head>` +
      `<body><svc-widget frame public-key="${publicKey}"></svc-widget></body></html>`,
  };
}

/** 128 random bits per response, as CSP nonces must be. */
function newNonce(): string {
  return randomBytes(16).toString('base64');
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
