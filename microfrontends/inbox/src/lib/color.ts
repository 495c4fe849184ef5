/** Colour helpers for chips drawn on user-chosen colours (queues, tags). */

/** The grey used for tickets without a department. */
export const NO_QUEUE_COLOR = '#7C7C7C';

/** `#rgb` / `#rrggbb` to [r, g, b], or undefined. */
export function parseHex(color: string | null | undefined): [number, number, number] | undefined {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec((color ?? '').trim());
  if (!m) return undefined;
  const h = m[1].length === 3 ? m[1].split('').map((c) => c + c).join('') : m[1];
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

/** A text colour readable on `background` (dark text on light colours, white otherwise). */
export function readableOn(background: string | null | undefined): string {
  const rgb = parseHex(background);
  if (!rgb) return '#FFFFFF';
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  return luminance > 0.45 ? '#1F2328' : '#FFFFFF';
}

/** `color` when it is a hex colour, else `fallback`. */
export function safeColor(color: string | null | undefined, fallback: string): string {
  return parseHex(color) ? (color as string).trim() : fallback;
}
