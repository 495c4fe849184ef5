// Rspack build of the shell: the single-spa root config and module-federation host. `npm run build -w shell`
// writes dist/ (index.html + content-hashed js/), served by serve.ts. Remotes come from the area manifests
// (microfrontends/*/area.json), which are also handed to the shell's router and menu as `__ATENDO_AREAS__`.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { rspack } from '@rspack/core';
import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { FederationRuntimeEsmPlugin, HOST_EXPERIMENTS, PrecompressPlugin, loadAreas, remotesFromAreas, SHARE_STRATEGY, sharedModules, SHELL_DIR, swcRule } from './federation.mjs';

const { loadExternalPluginErrorTexts, loadPluginErrorTexts, mergeErrorTexts } = createRequire(import.meta.url)('./plugin-error-texts.cjs');

export default (_env, argv) => {
  const production = argv.mode !== 'development';
  const areas = loadAreas();
  return {
    context: SHELL_DIR,
    mode: production ? 'production' : 'development',
    target: ['web', 'es2020'],
    devtool: production ? false : 'eval-cheap-module-source-map',
    entry: { main: './src/index.ts' },
    output: {
      path: join(SHELL_DIR, 'dist'),
      publicPath: '/',
      filename: production ? 'js/[name].[contenthash:10].js' : 'js/[name].js',
      chunkFilename: production ? 'js/[name].[contenthash:10].js' : 'js/[name].js',
      uniqueName: 'atendo_shell',
      clean: true,
    },
    resolve: { extensions: ['.ts', '.tsx', '.mjs', '.js', '.json'] },
    module: { rules: [swcRule(production)] },
    plugins: [
      new rspack.HtmlRspackPlugin({ template: './public/index.html', scriptLoading: 'defer', minify: production }),
      new ModuleFederationPlugin({
        name: 'atendo_shell',
        remotes: remotesFromAreas(areas),
        shared: sharedModules(),
        shareStrategy: SHARE_STRATEGY,
        experiments: HOST_EXPERIMENTS,
        dts: false,
        manifest: false,
      }),
      new FederationRuntimeEsmPlugin(),
      // The manifests without their comments and package folders: routes, menu entries, gates, remote URLs.
      // The plugins' error-code texts (plugins/<id>/i18n/errors.json, and those of plugin packages installed
      // from outside the workspaces), merged per language.
      new rspack.DefinePlugin({
        __ATENDO_AREAS__: JSON.stringify(areas.map(({ package: _pkg, ...area }) => area)),
        __ATENDO_PLUGIN_ERROR_TEXTS__: JSON.stringify(mergeErrorTexts({ ...loadPluginErrorTexts(), ...loadExternalPluginErrorTexts() })),
      }),
      // index.html, the entry and its chunks as .br and .gz beside them (served by serve.ts).
      ...(production ? [new PrecompressPlugin()] : []),
    ],
    performance: { hints: false },
    stats: 'errors-warnings',
  };
};
