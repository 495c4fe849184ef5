import { renderToStaticMarkup } from 'react-dom/server';
import { formatWhatsApp, previewText } from '../src/whatsapp-text';

const html = (t: string) => renderToStaticMarkup(<>{formatWhatsApp(t)}</>);

describe('WhatsApp formatting', () => {
  test('bold, italic, strikethrough, monospace and inline code are rendered, nested too', () => {
    expect(html('*Ana:*\nOlá')).toBe('<strong>Ana:</strong>\nOlá');
    expect(html('um _dois_ ~três~ `quatro` ```cinco seis```')).toBe('um <em>dois</em> <del>três</del> <code>quatro</code> <code style="white-space:pre-wrap;display:inline-block">cinco seis</code>');
    expect(html('*negrito _itálico_*')).toBe('<strong>negrito <em>itálico</em></strong>');
  });

  test('markers inside words, with spaces inside, unclosed or across lines stay as typed', () => {
    for (const t of ['2*3*4', 'a_b_c', '* solto *', '*aberto', 'um *dois\ntrês*', 'snake_case_name', '**']) expect(html(t)).toBe(t.replace(/&/g, '&amp;'));
  });

  test('previewText: markers removed, the signature line kept as "Name: ", line breaks as spaces', () => {
    expect(previewText('*Ana Souza:*\nBom dia, _tudo_ bem?')).toBe('Ana Souza: Bom dia, tudo bem?');
    expect(previewText('~velho~ *novo*')).toBe('velho novo');
    expect(previewText(null)).toBe('');
  });
});
