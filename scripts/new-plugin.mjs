// `npm run new:plugin -- <id>`: a new plugin in plugins/<id>, copied from plugins/_template (the one plugin
// shape of plugins/README.md). The template's placeholder `my-feature` is replaced in every file and file
// name in each spelling (my-feature, myFeature, MyFeature, my_feature, MY_FEATURE); the copy's package.json
// gets `"atendo": {"role": "plugin"}` (so the kernel loads it) and its migration a fresh timestamp.
// Then run `npm install` to link the new workspace package. Node built-ins only.
//
//   node scripts/new-plugin.mjs <id> [--dir <plugins folder>]   (default folder: <repo>/plugins)
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const TEMPLATE = join(ROOT, 'plugins', '_template');
const PLACEHOLDER = 'my-feature';
const TEMPLATE_NOTE = /<!-- template-only -->[\s\S]*?<!-- \/template-only -->\n*/g;

/** The spellings of a kebab-case id, keyed by kind. */
function spellings(id) {
  const words = id.split('-');
  const cap = (w) => w.charAt(0).toUpperCase() + w.slice(1);
  return {
    kebab: id,
    camel: words[0] + words.slice(1).map(cap).join(''),
    pascal: words.map(cap).join(''),
    snake: words.join('_'),
    upper: words.join('_').toUpperCase(),
  };
}

function fail(msg) {
  console.error(`new:plugin: ${msg}`);
  process.exit(1);
}

const args = process.argv.slice(2);
const dirFlag = args.indexOf('--dir');
const pluginsDir = dirFlag >= 0 ? args[dirFlag + 1] : join(ROOT, 'plugins');
const id = args.find((a, i) => !a.startsWith('--') && !(dirFlag >= 0 && i === dirFlag + 1));
if (!id) fail('usage: npm run new:plugin -- <id>   (kebab-case, e.g. campaigns or work-schedules)');
if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(id)) fail(`plugin id must be kebab-case (a-z, 0-9, single dashes): ${id}`);
if (id === PLACEHOLDER || id === 'kernel') fail(`${id} is reserved`);
const target = join(pluginsDir, id);
if (existsSync(target)) fail(`${target} already exists`);

const from = spellings(PLACEHOLDER);
const to = spellings(id);
const replace = (text) => Object.keys(from).reduce((s, k) => s.split(from[k]).join(to[k]), text);

cpSync(TEMPLATE, target, { recursive: true, filter: (src) => !src.split(/[\\/]/).includes('node_modules') });

/** Every file under `dir`. */
const walk = (dir) => readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? walk(join(dir, e)) : [join(dir, e)]));
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
for (const file of walk(target)) {
  writeFileSync(file, replace(readFileSync(file, 'utf8')).replace(TEMPLATE_NOTE, ''));
  let name = replace(file.slice(target.length));
  name = name.replace(/([\\/]migrations[\\/])\d{14}_/, `$1${stamp}_`);
  if (join(target, name) !== file) renameSync(file, join(target, name));
}

const pkgFile = join(target, 'package.json');
const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
pkg.description = `${id}: what this plugin owns and serves (edit me).`;
const { dependencies, devDependencies, ...head } = pkg;
writeFileSync(pkgFile, JSON.stringify({ ...head, atendo: { role: 'plugin' }, dependencies, devDependencies }, null, 2) + '\n');

console.log(`new:plugin: created ${relative(process.cwd(), target) || target} (plugin id ${id}, package @atendo/plugin-${id}).
Next: npm install --no-audit --no-fund   (links the workspace package)
      edit src/contract.ts, the migration and README.md; then npx jest ${relative(ROOT, target)}`);
