// Translations of the plugins' error codes. A plugin that declares error codes (`defineErrors` in its
// contract.ts) ships their texts next to them in `plugins/<id>/i18n/errors.json`:
//   { "pt-BR": { "ERR_X": "…" }, "en": { … }, "es": { … }, "tr": { … } }
// (the four interface languages, the same codes in each). The shell's build reads every such file and
// hands the merged tables to the shell (`__ATENDO_PLUGIN_ERROR_TEXTS__`, rspack DefinePlugin; jest sets
// the same global), which adds them to i18next's `backendErrors` next to the kernel codes' texts
// (shell/src/i18n/locales), so an error is translated on any page, whichever area shows it. A plugin package
// installed from outside the workspaces ships its texts the same way, in its own i18n/errors.json. Node
// built-ins only; CommonJS for jest.config.js, the ESM build scripts and TypeScript alike.
'use strict';
const { existsSync, readdirSync, readFileSync, realpathSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT_DIR = join(__dirname, '..');
const LANGUAGES = ['pt-BR', 'en', 'es', 'tr'];
const CODE_RE = /^ERR_[A-Z0-9_]+$/;

/** Checks one errors.json (throws with the file and what is wrong); returns it. */
function validateErrorTexts(json, file) {
  const fail = (msg) => {
    throw new Error(`${file}: ${msg}`);
  };
  if (!json || typeof json !== 'object' || Array.isArray(json)) fail('not an object');
  const langs = Object.keys(json).filter((k) => k !== '$comment');
  if (JSON.stringify(langs) !== JSON.stringify(LANGUAGES)) fail(`languages must be ${LANGUAGES.join(', ')} in that order (got ${langs.join(', ')})`);
  const codes = Object.keys(json[LANGUAGES[0]] ?? {}).sort();
  if (codes.length === 0) fail('no codes');
  for (const lng of LANGUAGES) {
    const table = json[lng];
    if (!table || typeof table !== 'object') fail(`${lng} is not an object`);
    const here = Object.keys(table).sort();
    if (JSON.stringify(here) !== JSON.stringify(codes)) fail(`${lng} must have the codes of ${LANGUAGES[0]} (${codes.join(', ')}), has ${here.join(', ')}`);
    for (const code of here) {
      if (!CODE_RE.test(code)) fail(`bad code ${code}`);
      if (typeof table[code] !== 'string' || !table[code].trim()) fail(`${lng}.${code} is empty`);
    }
  }
  return json;
}

/** Every plugin's error texts: `{ <plugin id>: { 'pt-BR': {code: text}, en, es, tr } }`, validated. */
function loadPluginErrorTexts(root = ROOT_DIR) {
  const dir = join(root, 'plugins');
  const out = {};
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    // plugins/_template (and any `_` folder) is not a plugin: the kernel never loads it.
    if (!entry.isDirectory() || entry.name.startsWith('_')) continue;
    const file = join(dir, entry.name, 'i18n', 'errors.json');
    if (!existsSync(file)) continue;
    const rel = relative(root, file);
    let json;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${rel}: ${err.message}`);
    }
    delete json.$comment;
    out[entry.name] = validateErrorTexts(json, rel);
  }
  return out;
}

/**
 * The error texts of the plugin packages installed from outside the workspaces (a tarball, a registry or
 * a linked folder: `"atendo": {"role": "plugin"}` in node_modules, not a workspace; the rule of
 * kernel/core/src/runtime/plugin-packages.ts), from their own `i18n/errors.json`, validated:
 * `{ 'node_modules/<package name>': { 'pt-BR': {code: text}, en, es, tr } }`.
 */
function loadExternalPluginErrorTexts(root = ROOT_DIR) {
  const out = {};
  for (const { name, dir } of externalPluginDirs(root)) {
    const file = join(dir, 'i18n', 'errors.json');
    if (!existsSync(file)) continue;
    let json;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${file}: ${err.message}`);
    }
    delete json.$comment;
    out[`node_modules/${name}`] = validateErrorTexts(json, `node_modules/${name}/i18n/errors.json`);
  }
  return out;
}

/** Every errors.json file the shell's build reads (workspace plugins, then external plugin packages). */
function pluginErrorTextFiles(root = ROOT_DIR) {
  const files = Object.keys(loadPluginErrorTexts(root)).map((id) => join(root, 'plugins', id, 'i18n', 'errors.json'));
  for (const { dir } of externalPluginDirs(root)) if (existsSync(join(dir, 'i18n', 'errors.json'))) files.push(join(dir, 'i18n', 'errors.json'));
  return files;
}

/** `{name, dir}` (real folder) of each plugin package in `root`'s node_modules that is not a workspace of `root`. */
function externalPluginDirs(root) {
  const nm = join(root, 'node_modules');
  if (!existsSync(nm)) return [];
  const readJson = (f) => {
    try {
      return JSON.parse(readFileSync(f, 'utf8'));
    } catch {
      return undefined;
    }
  };
  const workspaces = new Set();
  for (const w of readJson(join(root, 'package.json'))?.workspaces ?? []) {
    const dirs = w.endsWith('/*') ? (existsSync(join(root, w.slice(0, -2))) ? readdirSync(join(root, w.slice(0, -2))).map((e) => join(root, w.slice(0, -2), e)) : []) : [join(root, w)];
    for (const d of dirs) if (existsSync(join(d, 'package.json'))) workspaces.add(realpathSync(d));
  }
  const out = [];
  const check = (at) => {
    const pkg = readJson(join(at, 'package.json'));
    if (pkg?.atendo?.role !== 'plugin' || !pkg.name) return;
    const dir = realpathSync(at);
    if (!workspaces.has(dir)) out.push({ name: pkg.name, dir });
  };
  for (const name of readdirSync(nm).sort()) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) for (const sub of readdirSync(join(nm, name)).sort()) check(join(nm, name, sub));
    else check(join(nm, name));
  }
  return out;
}

/** Where a plugin's texts live: `plugins/<id>` for a workspace plugin, its package name for an external one. */
const where = (plugin) => (plugin.startsWith('node_modules/') ? plugin : `plugins/${plugin}`);

/** The tables merged per language (`{ 'pt-BR': {code: text}, … }`); a code in two plugins' files is refused. */
function mergeErrorTexts(byPlugin) {
  const merged = Object.fromEntries(LANGUAGES.map((l) => [l, {}]));
  const owner = {};
  for (const [plugin, texts] of Object.entries(byPlugin)) {
    for (const code of Object.keys(texts[LANGUAGES[0]])) {
      if (owner[code]) throw new Error(`error code ${code} has texts in both ${where(owner[code])} and ${where(plugin)}`);
      owner[code] = plugin;
    }
    for (const lng of LANGUAGES) Object.assign(merged[lng], texts[lng]);
  }
  return merged;
}

module.exports = { ROOT_DIR, LANGUAGES, validateErrorTexts, loadPluginErrorTexts, loadExternalPluginErrorTexts, pluginErrorTextFiles, mergeErrorTexts };
