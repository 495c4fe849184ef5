import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorCatalogue, type PluginDefinition } from '@atendo/sdk';
import { LANGUAGES, loadExternalPluginErrorTexts, loadPluginErrorTexts, mergeErrorTexts, pluginErrorTextFiles, ROOT_DIR, validateErrorTexts } from '../plugin-error-texts.cjs';
import { en } from '../src/i18n/locales/en';
import { es } from '../src/i18n/locales/es';
import { ptBR } from '../src/i18n/locales/pt-BR';
import { tr } from '../src/i18n/locales/tr';
import { resources } from '../src/i18n';

/** Every plugin definition (plugins/<id>; not plugins/_template), loaded so that their error codes join the catalogue. */
const PLUGINS: PluginDefinition[] = readdirSync(join(ROOT_DIR, 'plugins'))
  .filter((id) => !id.startsWith('_') && existsSync(join(ROOT_DIR, 'plugins', id, 'package.json')))
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  .map((id) => (require(join(ROOT_DIR, 'plugins', id)) as { default: PluginDefinition }).default);

/** The plugin that declares each plugin-owned code (`errors` of its definition). */
const OWNER = new Map(PLUGINS.flatMap((p) => Object.keys(p.errors ?? {}).map((code) => [code, p.id] as const)));
const SHELL_TABLES = { 'pt-BR': ptBR.backendErrors, en: en.backendErrors, es: es.backendErrors, tr: tr.backendErrors } as Record<string, Record<string, string>>;
const PLUGIN_TEXTS = loadPluginErrorTexts();

describe('translations of the error catalogue (kernel codes in the shell, plugin codes in plugins/<id>/i18n/errors.json)', () => {
  test('every code of the catalogue (kernel and every plugin) has a text in all four languages', () => {
    const codes = Object.keys(errorCatalogue());
    expect(codes.length).toBeGreaterThan(50);
    expect(OWNER.size).toBeGreaterThan(5);
    for (const code of OWNER.keys()) expect(codes).toContain(code);
    const missing = LANGUAGES.flatMap((lng) => codes.filter((code) => !resources[lng].translation.backendErrors[code as never]).map((code) => `${lng} ${code}`));
    expect(missing).toEqual([]);
  });

  test("the shell's tables hold kernel codes only: a plugin's code has its texts with the plugin", () => {
    const misplaced = LANGUAGES.flatMap((lng) =>
      Object.keys(SHELL_TABLES[lng])
        .filter((code) => OWNER.has(code))
        .map((code) => `${code} belongs to plugin ${OWNER.get(code)}: move its texts from shell/src/i18n/locales/${lng}.ts to plugins/${OWNER.get(code)}/i18n/errors.json`),
    );
    expect(misplaced).toEqual([]);
    const catalogue = errorCatalogue();
    for (const lng of LANGUAGES) for (const code of Object.keys(SHELL_TABLES[lng])) expect([lng, code, code in catalogue]).toEqual([lng, code, true]);
  });

  test("each plugin's errors.json has exactly the codes its definition declares", () => {
    for (const p of PLUGINS) {
      const declared = Object.keys(p.errors ?? {}).sort();
      const texts = PLUGIN_TEXTS[p.id];
      expect([p.id, texts ? Object.keys(texts['pt-BR']).sort() : []]).toEqual([p.id, declared]);
    }
    for (const id of Object.keys(PLUGIN_TEXTS)) expect(PLUGINS.map((p) => p.id)).toContain(id);
  });

  test('the shell adds the plugin texts to backendErrors (an owned code translates in every language)', () => {
    expect(resources['pt-BR'].translation.backendErrors['ERR_NO_TAG_FOUND' as never]).toBe('Tag não encontrada.');
    expect(resources.en.translation.backendErrors['ERR_NO_TAG_FOUND' as never]).toBe('Tag not found.');
    expect(resources.tr.translation.backendErrors.ERR_INVALID_CREDENTIALS).toBe(tr.backendErrors.ERR_INVALID_CREDENTIALS);
  });

  describe('the loader refuses bad files', () => {
    const good = () => ({ 'pt-BR': { ERR_A: 'a' }, en: { ERR_A: 'a' }, es: { ERR_A: 'a' }, tr: { ERR_A: 'a' } });
    test.each([
      ['a missing language', (t: Record<string, Record<string, string>>) => delete t.tr, /languages must be/],
      ['a code missing in one language', (t: Record<string, Record<string, string>>) => delete t.es.ERR_A, /es must have the codes/],
      ['an empty text', (t: Record<string, Record<string, string>>) => (t.en.ERR_A = ' '), /en.ERR_A is empty/],
      ['a bad code', (t: Record<string, Record<string, string>>) => LANGUAGES.forEach((l) => (t[l] = { err_a: 'a' })), /bad code err_a/],
    ])('%s', (_name, spoil, message) => {
      expect(validateErrorTexts(good(), 'x/errors.json')).toBeTruthy();
      const t = good() as Record<string, Record<string, string>>;
      spoil(t);
      expect(() => validateErrorTexts(t, 'x/errors.json')).toThrow(message);
    });

    test('a code with texts in two plugins', () => {
      const root = mkdtempSync(join(tmpdir(), 'errtexts-'));
      try {
        for (const id of ['one', 'two']) {
          mkdirSync(join(root, 'plugins', id, 'i18n'), { recursive: true });
          writeFileSync(join(root, 'plugins', id, 'i18n', 'errors.json'), JSON.stringify(good()));
        }
        const loaded = loadPluginErrorTexts(root);
        expect(Object.keys(loaded).sort()).toEqual(['one', 'two']);
        expect(() => mergeErrorTexts(loaded)).toThrow(/ERR_A has texts in both plugins\/one and plugins\/two/);
        expect(mergeErrorTexts({ one: loaded.one })).toEqual(good());
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });

    test('a plugin package installed from outside the workspaces ships its texts in its own i18n/errors.json', () => {
      const root = mkdtempSync(join(tmpdir(), 'errtexts-ext-'));
      const outside = mkdtempSync(join(tmpdir(), 'errtexts-folder-'));
      try {
        writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'host', workspaces: ['plugins/*'] }));
        const pkg = (dir: string, name: string, texts?: unknown) => {
          mkdirSync(join(dir, 'i18n'), { recursive: true });
          writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, atendo: { role: 'plugin' } }));
          if (texts) writeFileSync(join(dir, 'i18n', 'errors.json'), JSON.stringify(texts));
        };
        // A workspace plugin (linked into node_modules by npm): read as plugins/<id>, not again as external.
        pkg(join(root, 'plugins', 'one'), '@atendo/plugin-one', good());
        mkdirSync(join(root, 'node_modules', '@atendo'), { recursive: true });
        symlinkSync(join(root, 'plugins', 'one'), join(root, 'node_modules', '@atendo', 'plugin-one'), 'dir');
        // External: one installed from a tarball, one linked from a folder outside, one without texts.
        const other = { 'pt-BR': { ERR_B: 'b' }, en: { ERR_B: 'b' }, es: { ERR_B: 'b' }, tr: { ERR_B: 'b' } };
        pkg(join(root, 'node_modules', 'atendo-plugin-tarball'), 'atendo-plugin-tarball', other);
        pkg(outside, '@acme/atendo-plugin-linked', good());
        mkdirSync(join(root, 'node_modules', '@acme'), { recursive: true });
        symlinkSync(outside, join(root, 'node_modules', '@acme', 'atendo-plugin-linked'), 'dir');
        pkg(join(root, 'node_modules', 'atendo-plugin-silent'), 'atendo-plugin-silent');

        const external = loadExternalPluginErrorTexts(root);
        expect(Object.keys(external)).toEqual(['node_modules/@acme/atendo-plugin-linked', 'node_modules/atendo-plugin-tarball']);
        expect(pluginErrorTextFiles(root).sort()).toEqual([join(root, 'node_modules', 'atendo-plugin-tarball', 'i18n', 'errors.json'), join(outside, 'i18n', 'errors.json'), join(root, 'plugins', 'one', 'i18n', 'errors.json')].sort());
        expect(mergeErrorTexts({ 'node_modules/atendo-plugin-tarball': external['node_modules/atendo-plugin-tarball'] }).en).toEqual({ ERR_B: 'b' });
        // Its codes may not take a product plugin's.
        expect(() => mergeErrorTexts({ ...loadPluginErrorTexts(root), ...external })).toThrow(/ERR_A has texts in both plugins\/one and node_modules\/@acme\/atendo-plugin-linked/);
      } finally {
        rmSync(root, { recursive: true, force: true });
        rmSync(outside, { recursive: true, force: true });
      }
    });
  });
});
