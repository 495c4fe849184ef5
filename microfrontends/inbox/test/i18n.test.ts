import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resources } from '../src/i18n';

/** Every key path of a bundle, plural suffixes (_one, _many, _other...) folded into the base key. */
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
    expect(keys(resources[lng])).toEqual(keys(resources['pt-BR']));
  });

  test('plural keys have every form the language needs', () => {
    for (const lng of langs) {
      const categories = new Intl.PluralRules(lng).resolvedOptions().pluralCategories;
      const all = leaves(resources[lng]).map(([k]) => k);
      const plural = [...new Set(all.filter((k) => /_(one|other)$/.test(k)).map((k) => k.replace(/_(one|many|other)$/, '')))];
      for (const base of plural) for (const c of categories) expect(all).toContain(`${base}_${c}`);
    }
  });

  test('no empty texts; interpolations match pt-BR', () => {
    const ref = new Map(leaves(resources['pt-BR']).map(([k, v]) => [k.replace(/_(one|many|other)$/, ''), String(v)]));
    const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    for (const lng of langs) {
      for (const [k, v] of leaves(resources[lng])) {
        expect(typeof v === 'string' && v.trim().length > 0).toBe(true);
        expect([k, vars(String(v))]).toEqual([k, vars(ref.get(k.replace(/_(one|many|other)$/, '')) ?? '')]);
      }
    }
  });

  test('every literal key the manager uses exists', () => {
    const known = new Set(keys(resources['pt-BR']));
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
