import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resources } from '../src/i18n';
import { bundleKeys, bundleLeaves } from '../../../web/kit/test/i18n-keys';

describe('chat area translations', () => {
  const langs = Object.keys(resources) as (keyof typeof resources)[];

  test('four languages, pt-BR first, the same keys in each', () => {
    expect(langs).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const lng of langs) expect(bundleKeys(resources[lng])).toEqual(bundleKeys(resources['pt-BR']));
  });

  test('plural keys have every form the language needs; no empty texts; interpolations match pt-BR', () => {
    const ref = new Map(bundleLeaves(resources['pt-BR']).map(([k, v]) => [k.replace(/_(one|many|other)$/, ''), String(v)]));
    const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const lng of langs) {
      const all = bundleLeaves(resources[lng]);
      const names = all.map(([k]) => k);
      const categories = new Intl.PluralRules(lng).resolvedOptions().pluralCategories;
      for (const base of new Set(names.filter((k) => /_(one|other)$/.test(k)).map((k) => k.replace(/_(one|many|other)$/, '')))) {
        for (const c of categories) expect(names).toContain(`${base}_${c}`);
      }
      for (const [k, v] of all) {
        expect(typeof v === 'string' && v.trim().length > 0).toBe(true);
        expect([k, vars(String(v))]).toEqual([k, vars(ref.get(k.replace(/_(one|many|other)$/, '')) ?? '')]);
      }
    }
  });

  test('every literal key the sources use exists; the spec’s tab names', () => {
    const known = new Set(bundleKeys(resources['pt-BR']));
    const used = new Set<string>();
    const dir = join(__dirname, '../src');
    for (const name of readdirSync(dir).filter((n) => /\.tsx?$/.test(n))) {
      for (const m of readFileSync(join(dir, name), 'utf8').matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(25);
    expect([...used].filter((k) => !known.has(k))).toEqual([]);
    expect([resources['pt-BR'].tabs.chats, resources['pt-BR'].tabs.messages]).toEqual(['Chats', 'Mensagens']);
  });
});
