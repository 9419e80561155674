/** `text` cut into parts of at most `size` characters (code points, so no emoji is split), in order. */
export function textParts(text: string, size: number): string[] {
  const characters = Array.from(text);
  if (characters.length <= size) return [text];
  const parts: string[] = [];
  for (let start = 0; start < characters.length; start += size)
    parts.push(characters.slice(start, start + size).join(''));
  return parts;
}
