import { expect } from 'chai';
import MarkdownIt from 'markdown-it';
import { renderMarkdown } from '../src/domain/markdown';

/**
 * XSS payloads a help article or news body may hold (docs/decisions/0182). `renderMarkdown` must turn every one into
 * HTML with no script, no event handler, no element outside the allowlist and no unsafe URL.
 */
const PAYLOADS: string[] = [
  // Script tags, raw and disguised.
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
  '<<script>script>alert(1)<</script>/script>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  // Event handlers.
  '<img src=x onerror=alert(1)>',
  '<body onload=alert(1)>',
  '<a href="#" onclick="alert(1)">x</a>',
  '<details open ontoggle=alert(1)>',
  '<div onmouseover="alert(1)">hover</div>',
  '<img src="x" alt="``` onerror=alert(1)">',
  // SVG and MathML.
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  // Frames, objects, forms, documents.
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><button>x</button></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="javascript:alert(1)//">',
  '<link rel="stylesheet" href="javascript:alert(1)">',
  // Style.
  '<style>body{background:url(javascript:alert(1))}</style>',
  '<div style="background:url(javascript:alert(1))">x</div>',
  '| a |\n|:-|\n| b |\n\n<td style="behavior:url(x.htc)">',
  // javascript:, vbscript:, data: and file: in Markdown links and images.
  '[click](javascript:alert(1))',
  '[click](JaVaScRiPt:alert(1))',
  '[click](  javascript:alert(1)  )',
  '[click](vbscript:msgbox(1))',
  '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[click](file:///etc/passwd)',
  '[ref]\n\n[ref]: javascript:alert(1)',
  '![img](javascript:alert(1))',
  '![img](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  '![img](data:image/png;base64,iVBORw0KGgo=)',
  '![img](//evil.example/pixel.png)',
  // Encoded variants.
  '[click](&#106;avascript:alert(1))',
  '[click](&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;:alert(1))',
  '[click](java&#x09;script:alert(1))',
  '[click](javascript&colon;alert(1))',
  '[click](java\u0000script:alert(1))',
  '<a href="&#106;avascript:alert(1)">x</a>',
  // Autolinks and bare URLs.
  '<javascript:alert(1)>',
  '<vbscript:msgbox(1)>',
  'javascript:alert(1)',
  // Attribute breakouts through titles.
  '[x](https://ok.example "t\\" onmouseover=\\"alert(1)")',
  '![x](https://ok.example/a.png "t\\" onerror=\\"alert(1)")',
  // HTML in Markdown constructs.
  '`<script>alert(1)</script>`',
  '```html\n<script>alert(1)</script>\n```',
  '> <img src=x onerror=alert(1)>',
  '- <iframe src=//evil.example>',
  '**<svg/onload=alert(1)>**',
];

/** The allowlist of markdown.ts, repeated here on purpose: the test states what may reach a visitor. */
const TAGS = new Set(
  'p br hr h1 h2 h3 h4 h5 h6 blockquote pre code em strong s del ul ol li a img table thead tbody tr th td'.split(' '),
);
const ATTRIBUTES = new Set(['href', 'title', 'rel', 'target', 'src', 'alt', 'style', 'start', 'class']);
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/** A URL a browser would follow safely: a scheme of SAFE_SCHEMES, or relative (not protocol-relative). */
function safeUrl(value: string): boolean {
  // Browsers drop tabs, newlines and other control characters from URLs before reading the scheme.
  const url = [...decodeEntities(value)].filter((char) => (char.codePointAt(0) ?? 0) > 0x20).join('');
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  return scheme ? SAFE_SCHEMES.has(scheme.toLowerCase()) : !url.startsWith('//');
}

const decodeEntities = (value: string) =>
  value
    .replace(/&#x([0-9a-f]+);?/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#(\d+);?/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replace(/&colon;/gi, ':')
    .replace(/&amp;/gi, '&');

/** What in an HTML text could run script or leave through an unsafe URL; empty when nothing. */
function violations(html: string): string[] {
  const found: string[] = [];
  for (const [tag, closing, name = '', attributes = ''] of html.matchAll(/<(\/?)([a-zA-Z][\w:-]*)([^>]*)>/g)) {
    if (!TAGS.has(name.toLowerCase())) found.push(`element ${name}`);
    if (closing) continue;
    for (const [, attribute = '', , value = ''] of attributes.matchAll(/([^\s=/]+)(\s*=\s*"([^"]*)")?/g)) {
      if (!ATTRIBUTES.has(attribute.toLowerCase())) found.push(`attribute ${attribute} in ${tag}`);
      if (/^(href|src)$/i.test(attribute)) {
        if (!safeUrl(value)) found.push(`url ${value}`);
      }
      if (/^style$/i.test(attribute) && !/^text-align:(left|right|center);?$/.test(value)) found.push(`style ${value}`);
    }
    if (name.toLowerCase() === 'a' && !/\srel="noopener noreferrer nofollow"/.test(attributes))
      found.push(`link without rel noopener: ${tag}`);
  }
  return found;
}

/** A renderer with every guard off: what the checks must catch. */
const unguarded = new MarkdownIt({ html: true, linkify: true });
unguarded.validateLink = () => true;

describe('renderMarkdown sanitising (XSS payloads)', () => {
  it(`keeps every one of ${PAYLOADS.length} payloads from running script or linking unsafely`, () => {
    expect(PAYLOADS.length).to.be.at.least(30);
    const failures = PAYLOADS.flatMap((payload) =>
      violations(renderMarkdown(payload)).map((problem) => `${JSON.stringify(payload)}: ${problem}`),
    );
    expect(failures).to.deep.equal([]);
  });

  it('has checks that catch the payloads when nothing guards the rendering', () => {
    // Inert even unguarded: code shows its text escaped, linkify links no javascript:, attribute values are quoted
    // and escaped, and `<svg/onload…>` is no HTML tag to CommonMark (an attribute needs a space before it).
    const inert = new Set([
      '<img src="x" alt="``` onerror=alert(1)">',
      'javascript:alert(1)',
      '![x](https://ok.example/a.png "t\\" onerror=\\"alert(1)")',
      '`<script>alert(1)</script>`',
      '```html\n<script>alert(1)</script>\n```',
      '**<svg/onload=alert(1)>**',
    ]);
    const inertUnguarded = PAYLOADS.filter((payload) => inert.has(payload));
    expect(inertUnguarded).to.have.length(6);
    const missed = PAYLOADS.filter((payload) => !violations(unguarded.render(payload)).length);
    expect(missed).to.deep.equal(inertUnguarded);
  });

  it('shows raw HTML as text, not as markup', () => {
    expect(renderMarkdown('<script>alert(1)</script>')).to.equal('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n');
  });

  it('keeps safe Markdown: headings, emphasis, lists, tables, code, safe links and images', () => {
    const html = renderMarkdown(
      [
        '# Title',
        'Some *em* and **strong** and ~~gone~~.',
        '1. one\n2. two',
        '| a | b |\n|:-|-:|\n| 1 | 2 |',
        '```js\nconst x = 1;\n```',
        '[site](https://example.com "Example") <mailto:help@example.com> https://auto.example',
        '![logo](https://example.com/logo.png)',
      ].join('\n\n'),
    );
    expect(violations(html)).to.deep.equal([]);
    for (const part of [
      '<h1>Title</h1>',
      '<em>em</em>',
      '<strong>strong</strong>',
      '<s>gone</s>',
      '<ol>',
      '<th style="text-align:left">a</th>',
      '<code class="language-js">',
      '<a href="https://example.com" title="Example" rel="noopener noreferrer nofollow" target="_blank">site</a>',
      'href="mailto:help@example.com"',
      '<a href="https://auto.example" rel="noopener noreferrer nofollow" target="_blank">',
      '<img src="https://example.com/logo.png" alt="logo" />',
    ])
      expect(html).to.contain(part);
  });
});
