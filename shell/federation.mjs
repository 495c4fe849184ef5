// Module-federation contract between the shell (host) and the areas (remotes), used by every rspack
// config: the areas (their manifests, microfrontends/*/area.json, read by area-manifests.cjs), each area's
// remote name and URL, and the shared singletons.
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';

export const SHELL_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT_DIR = join(SHELL_DIR, '..');

const require = createRequire(import.meta.url);
const { loadAreaManifests } = require('./area-manifests.cjs');

/** @typedef {import('./area-manifests.cjs').AreaManifest} AreaDef */

/** The areas: every microfrontends/<area>/area.json, validated (see area-manifests.cjs). @returns {AreaDef[]} */
export function loadAreas() {
  return loadAreaManifests(ROOT_DIR);
}

/** The module-federation container name of an area (a JS identifier). */
export function remoteName(name) {
  return `atendo_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** Where the shell loads an area's remote entry from. */
export function remoteUrl(area) {
  return area.url ?? `/areas/${area.name}/remoteEntry.js`;
}

/** The host's `remotes` option, generated from the area manifests. */
export function remotesFromAreas(areas = loadAreas()) {
  return Object.fromEntries(areas.map((a) => [remoteName(a.name), `${remoteName(a.name)}@${remoteUrl(a)}`]));
}

const version = (pkg) => JSON.parse(readFileSync(join(ROOT_DIR, 'node_modules', pkg, 'package.json'), 'utf8')).version;
const major = (pkg) => `^${version(pkg).split('.')[0]}.0.0`;

/**
 * Shared singletons: one copy per page, provided by the shell. React, styled-components, react-query,
 * i18next and react-i18next are required to be single (hooks, theme and i18n contexts); so are the toast
 * container (toasts from any area show in the shell's container) and Atendo's own web modules (session
 * store, HTTP client, socket, theme store). Not shared on purpose: react-router. Only the shell uses it (the
 * inbox reads its two routes from the URL, microfrontends/inbox/src/lib/router.ts, instead of bundling a
 * ~15 KB gzipped router of its own), and a shared module cannot be tree-shaken: the shell's tree-shaken copy
 * weighs ~14 KB gzipped, shared it would add ~60 KB gzipped to /login. Versions are read from the installed
 * packages.
 *
 * Weight (`npm run bundle-size`, real Chromium, gzip -9): the JavaScript for /login then /tickets is ~247 KB
 * (target < 300 KB; it was ~331 KB): /login ~212 KB (react-dom ~64, the federation runtime ~25 in the shell's
 * entry, react-router + single-spa ~19, the shared singletons), the signed-in frame ~9 KB after sign-in,
 * the inbox ~26 KB (remoteEntry.js ~8 with the shell's runtime core, the manager ~18; the conversation,
 * ~25 KB, loads when a ticket is opened). Keeping it there: no form/schema library on /login, lazy chunks
 * for what the sign-in page does not show, and a shared module only when it must be a singleton.
 */
export function sharedModules() {
  const single = (pkg, extra = {}) => ({ singleton: true, requiredVersion: major(pkg), version: version(pkg), ...extra });
  return {
    react: single('react'),
    'react/jsx-runtime': single('react'),
    'react-dom': single('react-dom'),
    'react-dom/client': single('react-dom'),
    'styled-components': single('styled-components'),
    '@tanstack/react-query': single('@tanstack/react-query'),
    i18next: single('i18next'),
    'react-i18next': single('react-i18next'),
    'react-toastify': single('react-toastify'),
    '@atendo/web-api': single('@atendo/web-api', { requiredVersion: `^${version('@atendo/web-api')}` }),
    '@atendo/web-ui': single('@atendo/web-ui', { requiredVersion: `^${version('@atendo/web-ui')}` }),
  };
}

/**
 * How shared modules are resolved: 'loaded-first' uses the copies already loaded (the shell's) and does not
 * fetch every area's remoteEntry.js at start-up to compare versions (what 'version-first' does), so /login
 * loads no area code. The shell loads first and provides every singleton.
 */
export const SHARE_STRATEGY = 'loaded-first';

/**
 * Module-federation runtime options of the shell (host): it bundles the federation runtime once and hands
 * its core to the areas (`provideExternalRuntime`); no snapshot/manifest code (remotes are plain
 * remoteEntry.js URLs, `manifest: false`); browser-only code paths (`target: 'web'`).
 */
export const HOST_EXPERIMENTS = { provideExternalRuntime: true, optimization: { disableSnapshot: true, target: 'web' } };

/**
 * The same for an area (remote): it uses the shell's runtime core instead of a second copy
 * (`externalRuntime`; an area is only ever loaded by the shell) and loads no remotes itself.
 */
export const AREA_EXPERIMENTS = { externalRuntime: true, optimization: { disableSnapshot: true, disableRemote: true, target: 'web' } };

/**
 * Rspack plugin of every build (after ModuleFederationPlugin): the federation runtime as ES modules.
 * Rspack's federation plugin imports the CommonJS build of the bundler runtime
 * (`@module-federation/webpack-bundler-runtime/dist/index.cjs`) and aliases `@module-federation/runtime` to
 * its CommonJS main file, and the shell's `provideExternalRuntime` adds a CommonJS runtime plugin: CommonJS
 * is not tree-shaken (node-only and manifest/snapshot code reached the browser) and mixing both builds
 * bundled the runtime core twice. This points those imports at the packages' ES module builds (same code).
 */
export class FederationRuntimeEsmPlugin {
  apply(compiler) {
    const rootRequire = createRequire(join(ROOT_DIR, 'package.json'));
    const tools = dirname(rootRequire.resolve('@module-federation/runtime-tools'));
    const cjs = [
      rootRequire.resolve('@module-federation/webpack-bundler-runtime', { paths: [tools] }),
      rootRequire.resolve('@module-federation/inject-external-runtime-core-plugin', { paths: [dirname(rootRequire.resolve('@module-federation/enhanced'))] }),
    ];
    compiler.hooks.afterPlugins.tap('FederationRuntimeEsmPlugin', () => {
      const alias = { ...compiler.options.resolve.alias };
      delete alias['@module-federation/runtime'];
      for (const file of cjs) alias[`${file}$`] = file.replace(/\.cjs$/, '.js');
      compiler.options.resolve.alias = alias;
    });
  }
}

/** Assets worth precompressing (text); images and fonts are compressed formats already. */
export const PRECOMPRESS_TEST = /\.(js|mjs|css|html|json|svg|txt|map)$/;
/** Below this size an asset is sent as it is (the headers weigh about as much as the saving). */
export const PRECOMPRESS_MIN_BYTES = 1024;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/**
 * Rspack plugin of every production build (shell and areas): writes `<asset>.br` (brotli, quality 11) and
 * `<asset>.gz` (gzip, level 9) beside each text asset of at least 1 KB, kept only when smaller than the
 * original. The web server (shell/serve.ts, @fastify/static `preCompressed`) sends them to browsers that
 * accept the encoding, so nothing is compressed per request. Written as part of the compilation (after
 * minification and hashing, PROCESS_ASSETS_STAGE_OPTIMIZE_TRANSFER), so `output.clean` removes stale ones with their originals.
 * (compression-webpack-plugin would do the same but has a peer dependency on webpack itself.)
 */
export class PrecompressPlugin {
  apply(compiler) {
    const { Compilation, sources } = compiler.webpack;
    compiler.hooks.thisCompilation.tap('PrecompressPlugin', (compilation) => {
      compilation.hooks.processAssets.tapPromise({ name: 'PrecompressPlugin', stage: Compilation.PROCESS_ASSETS_STAGE_OPTIMIZE_TRANSFER }, async () => {
        const jobs = [];
        for (const asset of compilation.getAssets()) {
          if (!PRECOMPRESS_TEST.test(asset.name)) continue;
          const raw = asset.source.buffer();
          if (raw.length < PRECOMPRESS_MIN_BYTES) continue;
          const emit = (ext, data) => {
            if (data.length < raw.length) compilation.emitAsset(`${asset.name}${ext}`, new sources.RawSource(data), { compressed: true, immutable: asset.info.immutable });
          };
          jobs.push(brotli(raw, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 11, [zlibConstants.BROTLI_PARAM_SIZE_HINT]: raw.length } }).then((d) => emit('.br', d)));
          jobs.push(gzipAsync(raw, { level: 9 }).then((d) => emit('.gz', d)));
        }
        await Promise.all(jobs);
      });
    });
  }
}

/**
 * The whole Rspack config of an area (a module-federation remote exposing only `./lifecycles`, from
 * `src/lifecycles.tsx`): `export default areaConfig({ name: 'inbox', dir: DIR })`. Output: dist/remoteEntry.js
 * (not hashed, revalidated) and content-hashed js/ chunks, served under /areas/<name>/.
 */
export function areaConfig({ name, dir, exposes = { './lifecycles': './src/lifecycles.tsx' } }) {
  return (_env, argv) => {
    const production = argv.mode !== 'development';
    return {
      context: dir,
      mode: production ? 'production' : 'development',
      target: ['web', 'es2020'],
      devtool: production ? false : 'eval-cheap-module-source-map',
      entry: {},
      output: {
        path: join(dir, 'dist'),
        publicPath: 'auto',
        filename: production ? 'js/[name].[contenthash:10].js' : 'js/[name].js',
        chunkFilename: production ? 'js/[name].[contenthash:10].js' : 'js/[name].js',
        uniqueName: remoteName(name),
        clean: true,
      },
      resolve: { extensions: ['.ts', '.tsx', '.mjs', '.js', '.json'] },
      module: { rules: [swcRule(production)] },
      plugins: [
        new ModuleFederationPlugin({
          name: remoteName(name),
          filename: 'remoteEntry.js',
          exposes,
          shared: sharedModules(),
          shareStrategy: SHARE_STRATEGY,
          experiments: AREA_EXPERIMENTS,
          dts: false,
          manifest: false,
        }),
        new FederationRuntimeEsmPlugin(),
        ...(production ? [new PrecompressPlugin()] : []),
      ],
      performance: { hints: false },
      stats: 'errors-warnings',
    };
  };
}

/** SWC loader rule for TypeScript/TSX with React's automatic runtime. */
export function swcRule(production) {
  return {
    test: /\.[cm]?[jt]sx?$/,
    exclude: /node_modules/,
    loader: 'builtin:swc-loader',
    options: {
      jsc: {
        parser: { syntax: 'typescript', tsx: true },
        transform: { react: { runtime: 'automatic', development: !production, refresh: false } },
        target: 'es2020',
      },
    },
    type: 'javascript/auto',
  };
}
