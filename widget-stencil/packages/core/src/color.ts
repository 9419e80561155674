/**
 * Brand colours come from the integration's config; text drawn on them must stay readable (WCAG 2.1 AA, 1.4.3:
 * contrast ≥ 4.5:1). `readableOn` picks white or near-black, whichever contrasts more with the background.
 */
const FALLBACK = '#3047ec';
const LIGHT = '#ffffff';
const DARK = '#111111';

/** `#rgb` or `#rrggbb` (what the dashboard stores), else the default brand colour. */
export function brandColor(value: string | undefined): string {
  return value && /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(value.trim()) ? expand(value.trim()) : FALLBACK;
}

export function readableOn(background: string): string {
  return contrast(background, LIGHT) >= contrast(background, DARK) ? LIGHT : DARK;
}

export function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
}

function expand(hex: string): string {
  return hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join('')}` : hex;
}

// Relative luminance, WCAG 2.1 definition.
function luminance(hex: string): number {
  const value = expand(hex);
  const channel = (offset: number) => {
    const c = parseInt(value.slice(offset, offset + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}
