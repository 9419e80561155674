import { decodeHTML } from 'entities';
import sanitizeHtml from 'sanitize-html';

const EXCERPT_LENGTH = 200;

/** The start of a sanitised body as plain text: no markup, entities decoded, cut at a word within ~200 characters. */
export function excerptOf(bodyHtml: string): string {
  // Block ends become spaces so words of adjacent paragraphs do not run together.
  const spaced = bodyHtml.replace(/<\/(p|h[1-6]|li|blockquote|pre|td|th)>|<br\s*\/?>/gi, ' ');
  const text = decodeHTML(sanitizeHtml(spaced, { allowedTags: [], allowedAttributes: {} }))
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length <= EXCERPT_LENGTH) return text;
  const cut = text.slice(0, EXCERPT_LENGTH);
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > EXCERPT_LENGTH / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}
