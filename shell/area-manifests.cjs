// The areas' manifests: every `microfrontends/<area>/area.json` declares one module-federation remote (a
// single-spa application) with its access rule, its routes and its side-menu entries. Read by the shell's
// build (remotes, and the manifests handed to the shell's router and menu through `__ATENDO_AREAS__`), the
// web server (what to serve under /areas/<name>/), `npm start` (what to build) and jest (the same
// `__ATENDO_AREAS__` global). Node built-ins only; CommonJS so jest.config.js, the ESM build scripts and
// serve.ts can all load it. Types: area-manifests.d.cts.
//
// area.json:
//   name      remote name, kebab-case; served under /areas/<name>/
//   role      'user' | 'admin' | 'super': the least role of every route (each route may ask for more)
//   feature   plan flag gating every route, or null
//   plugin    optional: the backend plugin whose screens these are (its `featureFlag` must equal `feature`;
//             a test checks it); routes may name their own
//   url       optional remoteEntry URL (default /areas/<name>/remoteEntry.js)
//   routes    [{path, titleKey, role?, feature?, plugin?}] react-router paths (optional segments with `?`),
//             matched exactly and case-insensitively; titleKey: i18n key of the page title
//   menu      [{section: 'main'|'admin'|'super', key, to, icon, labelKey?, order, badge?, role?, feature?}]:
//             side-menu entries; `to` is one of the area's paths; the entry shows only to users who may open
//             it (its route's role and features); labelKey defaults to `menu.<key>`; entries of a section are
//             sorted by `order` (the shell's own entries use the same scale)
'use strict';
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT_DIR = join(__dirname, '..');
/** Where the areas live, relative to the repository root. */
const AREAS_FOLDER = 'microfrontends';
const ROLES = ['user', 'admin', 'super'];
const SECTIONS = ['main', 'admin', 'super'];
const BADGES = ['connections', 'chats'];

/** Expands optional segments: `/tickets/:ticketId?` -> [`/tickets`, `/tickets/:ticketId`]. */
function expandPath(path) {
  let out = [''];
  for (const seg of path.split('/').filter(Boolean)) {
    if (seg.endsWith('?')) {
      const s = seg.slice(0, -1);
      out = out.flatMap((p) => [p, `${p}/${s}`]);
    } else {
      out = out.map((p) => `${p}/${seg}`);
    }
  }
  return out.map((p) => p || '/');
}

/**
 * Structural checks of one manifest (throws with the file and the field). Plan feature names, icon names
 * and translation keys are checked by the shell's tests, which know those tables.
 */
function validateManifest(m, file) {
  const fail = (msg) => {
    throw new Error(`${file}: ${msg}`);
  };
  const str = (v) => typeof v === 'string' && v.length > 0;
  if (!m || typeof m !== 'object') fail('not an object');
  if (!str(m.name) || !/^[a-z][a-z0-9-]*$/.test(m.name)) fail(`bad name ${JSON.stringify(m.name)} (kebab-case)`);
  if (!ROLES.includes(m.role)) fail(`role must be one of ${ROLES.join(', ')}`);
  if (m.feature !== null && !str(m.feature)) fail('feature must be a plan flag or null');
  if (m.plugin !== undefined && !str(m.plugin)) fail('plugin must be a plugin id');
  if (m.url !== undefined && !str(m.url)) fail('url must be a string');
  if (!Array.isArray(m.routes) || m.routes.length === 0) fail('routes must be a non-empty array');
  const paths = new Set();
  for (const r of m.routes) {
    if (!r || !str(r.path) || !r.path.startsWith('/')) fail(`route path must start with / (${JSON.stringify(r && r.path)})`);
    if (!str(r.titleKey)) fail(`route ${r.path}: titleKey required`);
    if (r.role !== undefined && !ROLES.includes(r.role)) fail(`route ${r.path}: bad role`);
    if (r.feature !== undefined && r.feature !== null && !str(r.feature)) fail(`route ${r.path}: bad feature`);
    if (r.plugin !== undefined && !str(r.plugin)) fail(`route ${r.path}: bad plugin`);
    for (const p of expandPath(r.path)) {
      if (paths.has(p.toLowerCase())) fail(`route ${p} declared twice`);
      paths.add(p.toLowerCase());
    }
  }
  if (!Array.isArray(m.menu)) fail('menu must be an array (may be empty)');
  const keys = new Set();
  for (const e of m.menu) {
    if (!e || !str(e.key) || !/^[A-Za-z][A-Za-z0-9]*$/.test(e.key)) fail(`menu entry key ${JSON.stringify(e && e.key)} (camelCase)`);
    if (keys.has(e.key)) fail(`menu entry ${e.key} declared twice`);
    keys.add(e.key);
    if (!SECTIONS.includes(e.section)) fail(`menu entry ${e.key}: section must be one of ${SECTIONS.join(', ')}`);
    if (!str(e.to) || !paths.has(e.to.toLowerCase())) fail(`menu entry ${e.key}: to (${e.to}) is not a route of this area`);
    if (!str(e.icon)) fail(`menu entry ${e.key}: icon required`);
    if (typeof e.order !== 'number' || !Number.isFinite(e.order)) fail(`menu entry ${e.key}: order must be a number`);
    if (e.labelKey !== undefined && !str(e.labelKey)) fail(`menu entry ${e.key}: bad labelKey`);
    if (e.badge !== undefined && !BADGES.includes(e.badge)) fail(`menu entry ${e.key}: badge must be one of ${BADGES.join(', ')}`);
    if (e.role !== undefined && !ROLES.includes(e.role)) fail(`menu entry ${e.key}: bad role`);
    if (e.feature !== undefined && e.feature !== null && !str(e.feature)) fail(`menu entry ${e.key}: bad feature`);
  }
  return m;
}

/**
 * Every area manifest under `<root>/microfrontends/*\/area.json`, validated, sorted by name, each with its
 * `package` folder (relative to the root). Throws on a bad manifest or a name used twice.
 */
function loadAreaManifests(root = ROOT_DIR) {
  const dir = join(root, AREAS_FOLDER);
  if (!existsSync(dir)) return [];
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const file = join(dir, entry.name, 'area.json');
    if (!existsSync(file)) continue;
    const rel = relative(root, file);
    let json;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${rel}: ${err.message}`);
    }
    delete json.$comment;
    const m = validateManifest(json, rel);
    if (out.some((a) => a.name === m.name)) throw new Error(`${rel}: area name ${m.name} is used twice`);
    out.push({ ...m, package: `${AREAS_FOLDER}/${entry.name}` });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

module.exports = { ROOT_DIR, AREAS_FOLDER, ROLES, SECTIONS, BADGES, expandPath, validateManifest, loadAreaManifests };
