/** Jest for every workspace package: TypeScript through SWC, one PostgreSQL for the run (see kernel/testing). */
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { loadAreaManifests } = require('./shell/area-manifests.cjs');
const { loadPluginErrorTexts, mergeErrorTexts } = require('./shell/plugin-error-texts.cjs');

/** The folder of an installed package, wherever npm placed it (hoisted, or nested under a workspace). */
const installed = (name, ...under) => [...under.map((w) => join(__dirname, w, 'node_modules', name)), join(__dirname, 'node_modules', name)].find((d) => existsSync(d));

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // ESM-only packages must be transformed too.
  transformIgnorePatterns: ['^(?!.*/node_modules/(@whiskeysockets|whatsapp-rust-bridge|cookie|@fastify/cookie|content-disposition|file-type|strtok3|token-types|peek-readable|@tokenizer/token|@tokenizer/inflate|uint8array-extras|@borewit/text-codec|p-queue|p-timeout)/).*/node_modules/'],
  // ESM packages whose exports have no `require`/`default` condition: map to their entry file (Baileys' crypto bridge).
  // file-type 21 exports only `import`/`module-sync` conditions (Node 20.19+ requires it natively; jest's CJS
  // resolver does not know `module-sync`).
  moduleNameMapper: {
    '^whatsapp-rust-bridge$': '<rootDir>/node_modules/whatsapp-rust-bridge/dist/index.js',
    '^file-type$': join(installed('file-type', 'kernel/core') ?? 'node_modules/file-type', 'index.js'),
  },
  testMatch: ['<rootDir>/kernel/*/test/**/*.test.ts', '<rootDir>/plugins/*/test/**/*.test.ts', '<rootDir>/channels/*/test/**/*.test.ts', '<rootDir>/e2e/**/*.test.ts', '<rootDir>/shell/test/**/*.test.ts?(x)', '<rootDir>/microfrontends/*/test/**/*.test.ts?(x)', '<rootDir>/web/*/test/**/*.test.ts?(x)'],
  // The area manifests (microfrontends/*/area.json) and the plugins' error texts (plugins/*/i18n/errors.json),
  // as the shell's build hands them to its code.
  globals: {
    __ATENDO_AREAS__: loadAreaManifests(__dirname).map(({ package: _pkg, ...area }) => area),
    __ATENDO_PLUGIN_ERROR_TEXTS__: mergeErrorTexts(loadPluginErrorTexts(__dirname)),
  },
  globalSetup: '<rootDir>/kernel/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/kernel/testing/src/global-teardown.ts',
  testTimeout: 30000,
  // Two workers (scripts/test.mjs), each test kernel on a database and a RabbitMQ exchange of its own; a
  // worker whose heap passed this after a test file is replaced (the OOM of one long-lived process).
  maxWorkers: 2,
  workerIdleMemoryLimit: '2GB',
};
