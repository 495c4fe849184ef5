import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { allTexts } from './helpers';
import { resources as areaTexts } from '../src/i18n';
import { bundleKeys, bundleLeaves } from '../../../web/kit/test/i18n-keys';

function leaves(bundle: object, prefix = ''): [string, string][] {
  return Object.entries(bundle).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, prefix ? `${prefix}.${k}` : k) : [[prefix ? `${prefix}.${k}` : k, String(v)] as [string, string]]));
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

describe('admin area translations', () => {
  const resources = allTexts();
  const langs = Object.keys(resources) as (keyof typeof resources)[];

  test('four languages, pt-BR first', () => {
    expect(langs).toEqual(['pt-BR', 'en', 'es', 'tr']);
  });

  test.each(['en', 'es', 'tr'] as const)('%s has exactly the keys of pt-BR', (lng) => {
    expect(bundleKeys(resources[lng])).toEqual(bundleKeys(resources['pt-BR']));
  });

  test('plural keys have every form the language needs; no empty texts; interpolations match pt-BR', () => {
    const vars = (s: string) => (s.match(/{{\w+}}/g) ?? []).sort();
    const ref = new Map(bundleLeaves(resources['pt-BR']).map(([k, v]) => [k.replace(/_(one|many|other)$/, ''), v]));
    for (const lng of langs) {
      const all = bundleLeaves(resources[lng]);
      const categories = new Intl.PluralRules(lng).resolvedOptions().pluralCategories;
      const plural = [...new Set(all.map(([k]) => k).filter((k) => /_(one|other)$/.test(k)).map((k) => k.replace(/_(one|many|other)$/, '')))];
      for (const base of plural) for (const c of categories) expect(all.map(([k]) => k)).toContain(`${base}_${c}`);
      for (const [k, v] of all) {
        expect(typeof v).toBe('string');
        expect(String(v).trim()).not.toBe('');
        expect(vars(String(v))).toEqual(vars(String(ref.get(k.replace(/_(one|many|other)$/, '')) ?? '')));
      }
    }
  });

  test('the spec\'s required-field text is "Obrigatório"', () => {
    expect((resources['pt-BR'].announcements as { form: { required: string } }).form.required).toBe('Obrigatório');
  });

  test("a page uses only its own texts and the area's: page texts load with their page (issue 31: the connection dialog showed queues.form.* keys)", () => {
    const pagesDir = join(__dirname, '../src/pages');
    const pages = readdirSync(pagesDir).filter((d) => existsSync(join(pagesDir, d, 'i18n.ts')));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const own = new Map(pages.map((d) => [d, new Set(Object.keys((require(join(pagesDir, d, 'i18n.ts')) as { texts: { 'pt-BR': object } }).texts['pt-BR']))]));
    const shared = new Set(Object.keys(areaTexts['pt-BR']));
    const foreign: string[] = [];
    for (const d of pages) {
      for (const file of sources(join(pagesDir, d))) {
        for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z]+)\.[a-zA-Z.]+'/g)) {
          if (!own.get(d)!.has(m[1]) && !shared.has(m[1])) foreign.push(`${d}: ${m[0].slice(3)}`);
        }
      }
    }
    expect(pages.length).toBeGreaterThan(5);
    expect(foreign).toEqual([]);
  });

  test('every key the sources use exists', () => {
    const used = new Set<string>();
    for (const file of sources(join(__dirname, '../src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z.]+)'/g)) used.add(m[1]);
    }
    const known = new Set(bundleKeys(resources['pt-BR']));
    expect(used.size).toBeGreaterThan(20);
    for (const k of used) expect([k, known.has(k)]).toEqual([k, true]);
  });
});
