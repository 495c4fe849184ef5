// Rspack build of the shell: the single-spa root config and module-federation host. `npm run build -w shell`
// writes dist/ (index.html + content-hashed js/), served by serve.ts. Remotes come from areas.json.
import { join } from 'node:path';
import { rspack } from '@rspack/core';
import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { FederationRuntimeEsmPlugin, HOST_EXPERIMENTS, remotesFromAreas, SHARE_STRATEGY, sharedModules, SHELL_DIR, swcRule } from './federation.mjs';

export default (_env, argv) => {
  const production = argv.mode !== 'development';
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
        remotes: remotesFromAreas(),
        shared: sharedModules(),
        shareStrategy: SHARE_STRATEGY,
        experiments: HOST_EXPERIMENTS,
        dts: false,
        manifest: false,
      }),
      new FederationRuntimeEsmPlugin(),
    ],
    performance: { hints: false },
    stats: 'errors-warnings',
  };
};
