// Rspack build of the inbox area (/tickets, /tickets/:ticketId): a module-federation remote exposing only
// single-spa lifecycles (`./lifecycles`). `npm run build -w microfrontends/inbox` writes dist/remoteEntry.js + js/, served by
// the shell's web server under /areas/inbox/.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModuleFederationPlugin } from '@module-federation/enhanced/rspack';
import { remoteName, sharedModules, swcRule } from '../../shell/federation.mjs';

const DIR = dirname(fileURLToPath(import.meta.url));
const NAME = 'inbox';

export default (_env, argv) => {
  const production = argv.mode !== 'development';
  return {
    context: DIR,
    mode: production ? 'production' : 'development',
    target: ['web', 'es2020'],
    devtool: production ? false : 'eval-cheap-module-source-map',
    entry: {},
    output: {
      path: join(DIR, 'dist'),
      publicPath: 'auto',
      filename: production ? 'js/[name].[contenthash:10].js' : 'js/[name].js',
      chunkFilename: production ? 'js/[name].[contenthash:10].js' : 'js/[name].js',
      uniqueName: remoteName(NAME),
      clean: true,
    },
    resolve: { extensions: ['.ts', '.tsx', '.mjs', '.js', '.json'] },
    module: { rules: [swcRule(production)] },
    plugins: [
      new ModuleFederationPlugin({
        name: remoteName(NAME),
        filename: 'remoteEntry.js',
        exposes: { './lifecycles': './src/lifecycles.tsx' },
        shared: sharedModules(),
        dts: false,
        manifest: false,
      }),
    ],
    performance: { hints: false },
    stats: 'errors-warnings',
  };
};
