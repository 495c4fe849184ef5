import { Fragment, type ReactNode } from 'react';

/**
 * WhatsApp's text formatting, rendered instead of shown as markup (issue 20 item 9): `*bold*`, `_italic_`,
 * `~strikethrough~`, ```` ```monospace``` ```` and `` `inline code` ``. A marker opens only at the start of
 * the text or after a space or punctuation, and its content neither starts nor ends with a space (as
 * WhatsApp does), so `2*3*4` or `a_b_c` stay as typed. Line breaks are kept (render inside `white-space:
 * pre-wrap`). `previewText` gives the one-line plain text of list previews.
 */

type Style = 'b' | 'i' | 's' | 'code' | 'pre';

const MARKERS: Record<string, Style> = { '*': 'b', _: 'i', '~': 's', '`': 'code' };
const OPENS_AFTER = /[\s.,;:!?()[\]{}"'«»¿¡\-—*_~]/;

interface Span {
  style: Style | null;
  children: (Span | string)[];
}

/** Parses `text` into nested styled spans (at most a few levels deep, as WhatsApp allows). */
function parse(text: string, depth = 0): (Span | string)[] {
  const out: (Span | string)[] = [];
  let plain = '';
  let i = 0;
  const flush = () => {
    if (plain) out.push(plain);
    plain = '';
  };
  while (i < text.length) {
    if (text.startsWith('```', i)) {
      const end = text.indexOf('```', i + 3);
      if (end > i + 3) {
        flush();
        out.push({ style: 'pre', children: [text.slice(i + 3, end)] });
        i = end + 3;
        continue;
      }
    }
    const ch = text[i];
    const style = MARKERS[ch];
    const before = i === 0 ? ' ' : text[i - 1];
    if (style && depth < 4 && OPENS_AFTER.test(before) && text[i + 1] && !/\s/.test(text[i + 1]) && text[i + 1] !== ch) {
      const end = findClose(text, i + 1, ch);
      if (end > i + 1) {
        flush();
        const inner = text.slice(i + 1, end);
        out.push({ style, children: style === 'code' ? [inner] : parse(inner, depth + 1) });
        i = end + 1;
        continue;
      }
    }
    plain += ch;
    i++;
  }
  flush();
  return out;
}

/** The index of the marker `ch` closing a span opened before `from` on the same line, or -1. */
function findClose(text: string, from: number, ch: string): number {
  for (let j = from + 1; j < text.length; j++) {
    if (text[j] === '\n') return -1;
    if (text[j] !== ch || /\s/.test(text[j - 1])) continue;
    const after = text[j + 1];
    if (after === undefined || !/[\p{L}\p{N}]/u.test(after)) return j;
  }
  return -1;
}

function render(nodes: (Span | string)[], key = ''): ReactNode[] {
  return nodes.map((n, i) => {
    const k = `${key}${i}`;
    if (typeof n === 'string') return <Fragment key={k}>{n}</Fragment>;
    const children = render(n.children, `${k}.`);
    switch (n.style) {
      case 'b':
        return <strong key={k}>{children}</strong>;
      case 'i':
        return <em key={k}>{children}</em>;
      case 's':
        return <del key={k}>{children}</del>;
      case 'code':
        return <code key={k}>{children}</code>;
      case 'pre':
        return <code key={k} style={{ whiteSpace: 'pre-wrap', display: 'inline-block' }}>{children}</code>;
      default:
        return <Fragment key={k}>{children}</Fragment>;
    }
  });
}

/** `text` with WhatsApp's formatting rendered as React nodes. */
export function formatWhatsApp(text: string | null | undefined): ReactNode[] {
  return render(parse(text ?? ''));
}

/** A text with WhatsApp's formatting rendered (a `<span>`; keep line breaks with `white-space: pre-wrap`). */
export function WhatsAppText({ text, className }: { text: string | null | undefined; className?: string }) {
  return <span className={className}>{formatWhatsApp(text)}</span>;
}

function plainOf(nodes: (Span | string)[]): string {
  return nodes.map((n) => (typeof n === 'string' ? n : plainOf(n.children))).join('');
}

/**
 * The one-line plain text of a message for list previews and notifications: formatting markers removed,
 * a signature line (`*Ana:*` then a line break) kept as `Ana: `, line breaks as spaces.
 */
export function previewText(text: string | null | undefined): string {
  return plainOf(parse(text ?? ''))
    .replace(/\s*\n+\s*/g, ' ')
    .trim();
}
