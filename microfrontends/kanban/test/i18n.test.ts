import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { allTexts } from './helpers';
import { bundleKeys, bundleLeaves } from '../../../web/kit/test/i18n-keys';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

describe('kanban area translations', () => {
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
        expect([k, vars(String(v))]).toEqual([k, vars(String(ref.get(k.replace(/_(one|many|other)$/, '')) ?? ''))]);
      }
    }
  });

  test('every literal key the sources use exists', () => {
    const used = new Set<string>();
    for (const file of sources(join(__dirname, '../src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g)) used.add(m[1]);
    }
    const known = new Set(bundleKeys(resources['pt-BR']));
    expect(used.size).toBeGreaterThan(10);
    for (const k of used) expect([k, known.has(k)]).toEqual([k, true]);
  });
});
