/**
 * Splits `text` into parts of at most `maxChars` characters (Unicode code points) and `maxBytes` UTF-8
 * bytes, breaking after the last whitespace of a part when there is one in its second half (so words stay
 * whole), never inside a surrogate pair. An empty or blank text gives []. Without limits: `[text]`.
 */
export function splitText(text: string, limits: { maxChars?: number; maxBytes?: number } = {}): string[] {
  if (!text || !text.trim()) return [];
  const maxChars = limits.maxChars ?? Infinity;
  const maxBytes = limits.maxBytes ?? Infinity;
  const cps = Array.from(text);
  const out: string[] = [];
  let start = 0;
  while (start < cps.length) {
    let end = start;
    let bytes = 0;
    while (end < cps.length && end - start < maxChars) {
      const b = Buffer.byteLength(cps[end], 'utf8');
      if (bytes + b > maxBytes) break;
      bytes += b;
      end++;
    }
    if (end === start) end = start + 1; // a single code point over the byte limit: send it alone
    if (end < cps.length) {
      for (let i = end - 1; i > start + (end - start) / 2; i--) {
        if (/\s/.test(cps[i])) {
          end = i + 1;
          break;
        }
      }
    }
    const part = cps.slice(start, end).join('');
    if (part.trim()) out.push(part);
    start = end;
  }
  return out;
}
