import { escapeUTF8 as escape } from 'entities';
import type { HelpSite } from './help-site';

/** The sitemap of a help center: every page with its locale alternates (docs/decisions/0188). */
export function renderSitemap(site: HelpSite, absolute: (path: string) => string): string {
  const urls = site.pages.map((page) => {
    const lastmod = page.kind === 'article' ? `<lastmod>${page.translation.updatedAt.toISOString()}</lastmod>` : '';
    const links = [
      ...page.alternates.map(
        (alternate) =>
          `<xhtml:link rel="alternate" hreflang="${escape(alternate.locale)}" href="${escape(absolute(alternate.path))}"/>`,
      ),
      `<xhtml:link rel="alternate" hreflang="x-default" href="${escape(absolute(page.xDefault))}"/>`,
    ];
    return `<url><loc>${escape(absolute(page.path))}</loc>${lastmod}${links.join('')}</url>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
${urls.join('\n')}
</urlset>
`;
}
