import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/**
 * Markdown → HTML for help articles and news posts, rendered once when written (docs/decisions/0182). Two layers:
 * markdown-it with raw HTML off (any `<tag>` in the source is escaped text) and its link check (no `javascript:`,
 * `vbscript:`, `file:` or non-image `data:` URLs), then sanitize-html with an allowlist, so a renderer bug or plugin
 * can never put a script, an event handler or an unsafe URL in front of a visitor.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'code',
  'em',
  'strong',
  's',
  'del',
  'ul',
  'ol',
  'li',
  'a',
  'img',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
];

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: {
    a: ['href', 'title', 'rel', 'target'],
    img: ['src', 'alt', 'title'],
    th: ['style'],
    td: ['style'],
    ol: ['start'],
    code: ['class'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  // markdown-it writes table alignment as `style="text-align:…"`: that one property only.
  allowedStyles: { '*': { 'text-align': [/^(left|right|center)$/] } },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  transformTags: {
    // Every link leaves the page it is on without handing it the opener or a referrer.
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }),
  },
};

/** The sanitised HTML of a Markdown text. */
export function renderMarkdown(source: string): string {
  return sanitizeHtml(markdown.render(source), SANITIZE);
}
