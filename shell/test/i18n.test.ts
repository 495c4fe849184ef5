import { en } from '../src/i18n/locales/en';
import { es } from '../src/i18n/locales/es';
import { ptBR } from '../src/i18n/locales/pt-BR';
import { tr } from '../src/i18n/locales/tr';
import { AREAS } from '../src/areas';
import { MENU } from '../src/menu';
import { COMING_SOON_ROUTES } from '../src/routes';

type Tree = { [k: string]: string | Tree };
function leaves(t: Tree, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(t)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, v);
    else for (const [kk, vv] of leaves(v, key)) out.set(kk, vv);
  }
  return out;
}

describe('translations', () => {
  const base = leaves(ptBR as unknown as Tree);
  test.each([
    ['en', en],
    ['es', es],
    ['tr', tr],
  ])('%s has exactly the keys of pt-BR, none empty, same placeholders', (_lng, table) => {
    const other = leaves(table as unknown as Tree);
    expect([...other.keys()].sort()).toEqual([...base.keys()].sort());
    for (const [key, text] of other) {
      expect(text.trim()).not.toBe('');
      const vars = (s: string) => (s.match(/{{\s*\w+\s*}}/g) ?? []).sort();
      expect([key, vars(text)]).toEqual([key, vars(base.get(key)!)]);
    }
  });

  test('the spec texts: Acessar, the second-login message, the English validation messages', () => {
    expect(ptBR.login.submit).toBe('Acessar');
    expect(ptBR.session.otherLogin).toBe('Sua conta foi acessada em outro computador.');
    expect(ptBR.comingSoon.title).toBe('Em breve');
    expect(en.validation).toMatchObject({ required: 'Required', tooShort: 'Too Short!', tooLong: 'Too Long!', invalidEmail: 'Invalid email' });
    expect(en.errors.generic).toBe('An error occurred!');
  });

  test('every menu entry and route title has a text', () => {
    for (const s of MENU) for (const e of s.entries) expect([e.key, base.has(e.labelKey)]).toEqual([e.key, true]);
    for (const r of [...COMING_SOON_ROUTES, ...AREAS.flatMap((a) => a.routes)]) expect([r.path, base.has(r.titleKey)]).toEqual([r.path, true]);
  });
});
