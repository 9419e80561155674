import type { WebIntegration } from '@svc/proto/channels/v1';
import { normaliseOrigin } from './cors';

/**
 * The frame document of an integration (docs/decisions/0089): the page the loader puts in its iframe. Browsers
 * enforce its `Content-Security-Policy: frame-ancestors`, so only the integration's allowed origins can embed it;
 * none allowed: `'none'`. The widget bundle itself (next issue) is loaded into it from the widget's origin.
 */
export function frameDocument(integration: WebIntegration, widgetOrigin: string) {
  const ancestors = integration.allowedOrigins.map(normaliseOrigin).filter((origin): origin is string => !!origin);
  const frameAncestors = ancestors.length ? ancestors.join(' ') : "'none'";
  const script = widgetOrigin ? ` ${normaliseOrigin(widgetOrigin) ?? ''}` : '';
  const publicKey = escapeHtml(integration.publicKey);
  const locale = escapeHtml(integration.defaultLocale || 'en');
  return {
    headers: {
      'content-security-policy': `frame-ancestors ${frameAncestors}; default-src 'self'; script-src 'self'${script}; base-uri 'none'; object-src 'none'`,
      'cache-control': 'no-cache',
      'referrer-policy': 'strict-origin',
      'x-content-type-options': 'nosniff',
    },
    html:
      `<!doctype html><html lang="${locale}"><head><meta charset="utf-8">` +
      `<meta name="viewport" content="width=device-width, initial-scale=1"><title>Chat</title></head>` +
      `<body><svc-widget public-key="${publicKey}"></svc-widget></body></html>`,
  };
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
