import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resources } from '../src/i18n';

/** Every key path of a bundle, plural suffixes folded into the base key. */
function keys(bundle: object, prefix = ''): string[] {
  const out = new Set<string>();
  for (const [k, v] of Object.entries(bundle)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object') for (const sub of keys(v, path)) out.add(sub);
    else out.add(path.replace(/_(zero|one|two|few|many|other)$/, ''));
  }
  return [...out].sort();
}

function leaves(bundle: object, prefix = ''): [string, unknown][] {
  return Object.entries(bundle).flatMap(([k, v]) => (v && typeof v === 'object' ? leaves(v, prefix ? `${prefix}.${k}` : k) : [[prefix ? `${prefix}.${k}` : k, v] as [string, unknown]]));
}

describe('chat area translations', () => {
  const langs = Object.keys(resources) as (keyof typeof resources)[];

  test('four languages, pt-BR first, the same keys in each', () => {
    expect(langs).toEqual(['pt-BR', 'en', 'es', 'tr']);
    for (const lng of langs) expect(keys(resources[lng])).toEqual(keys(resources['pt-BR']));
  });

  test('plural keys have every form the language needs; no empty texts; interpolations match pt-BR', () => {
    const ref = new Map(leaves(resources['pt-BR']).map(([k, v]) => [k.replace(/_(one|many|other)$/, ''), String(v)]));
    const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const lng of langs) {
      const all = leaves(resources[lng]);
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
    const known = new Set(keys(resources['pt-BR']));
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
