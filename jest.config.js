/** Jest for every workspace package: TypeScript through SWC, one PostgreSQL for the run (see kernel/testing). */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, transform: { react: { runtime: 'automatic' } }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // ESM-only packages must be transformed too.
  transformIgnorePatterns: ['^(?!.*/node_modules/(@whiskeysockets|whatsapp-rust-bridge|cookie|@fastify/cookie|content-disposition|file-type|strtok3|token-types|peek-readable|@tokenizer/token|@tokenizer/inflate|uint8array-extras|@borewit/text-codec|p-queue|p-timeout)/).*/node_modules/'],
  // ESM packages whose exports have no `require`/`default` condition: map to their entry file (Baileys' crypto bridge).
  moduleNameMapper: { '^whatsapp-rust-bridge$': '<rootDir>/node_modules/whatsapp-rust-bridge/dist/index.js' },
  testMatch: ['<rootDir>/kernel/*/test/**/*.test.ts', '<rootDir>/plugins/*/test/**/*.test.ts', '<rootDir>/channels/*/test/**/*.test.ts', '<rootDir>/e2e/**/*.test.ts', '<rootDir>/shell/test/**/*.test.ts?(x)', '<rootDir>/microfrontends/*/test/**/*.test.ts?(x)'],
  globalSetup: '<rootDir>/kernel/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/kernel/testing/src/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
