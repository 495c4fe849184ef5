import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resources } from '../src/i18n';
import { bundleKeys, bundleLeaves } from '../../../web/kit/test/i18n-keys';

/** Source files of the ticket-manager side (the conversation side checks its own texts). */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'conversation' ? [] : sources(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

describe('inbox translations', () => {
  const langs = Object.keys(resources) as (keyof typeof resources)[];

  test('four languages, pt-BR first', () => {
    expect(langs).toEqual(['pt-BR', 'en', 'es', 'tr']);
  });

  test.each(['en', 'es', 'tr'] as const)('%s has exactly the keys of pt-BR', (lng) => {
    expect(bundleKeys(resources[lng])).toEqual(bundleKeys(resources['pt-BR']));
  });

  test('plural keys have every form the language needs', () => {
    for (const lng of langs) {
      const categories = new Intl.PluralRules(lng).resolvedOptions().pluralCategories;
      const all = bundleLeaves(resources[lng]).map(([k]) => k);
      const plural = [...new Set(all.filter((k) => /_(one|other)$/.test(k)).map((k) => k.replace(/_(one|many|other)$/, '')))];
      for (const base of plural) for (const c of categories) expect(all).toContain(`${base}_${c}`);
    }
  });

  test('no empty texts; interpolations match pt-BR', () => {
    const ref = new Map(bundleLeaves(resources['pt-BR']).map(([k, v]) => [k.replace(/_(one|many|other)$/, ''), String(v)]));
    const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const lng of langs) {
      for (const [k, v] of bundleLeaves(resources[lng])) {
        expect(typeof v === 'string' && v.trim().length > 0).toBe(true);
        expect([k, vars(String(v))]).toEqual([k, vars(ref.get(k.replace(/_(one|many|other)$/, '')) ?? '')]);
      }
    }
  });

  test('every literal key the manager uses exists', () => {
    const known = new Set(bundleKeys(resources['pt-BR']));
    const used = new Set<string>();
    for (const file of sources(join(__dirname, '../src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g)) used.add(m[1]);
    }
    expect(used.size).toBeGreaterThan(40);
    expect([...used].filter((k) => !known.has(k))).toEqual([]);
  });

  test('the spec’s Portuguese texts', () => {
    const pt = resources['pt-BR'];
    expect([pt.row.noQueue, pt.row.location, pt.row.vcard, pt.row.typing, pt.row.recording, pt.validation.queueRequired, pt.narrow.ticket, pt.narrow.list]).toEqual([
      'SEM FILA',
      'Localização',
      'Contato',
      'Digitando...',
      'Gravando...',
      'Selecione uma fila',
      'Ticket',
      'Atendimentos',
    ]);
  });
});
