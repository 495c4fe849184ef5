/** Jest for every workspace package: TypeScript through SWC, one PostgreSQL for the run (see kernel/testing). */
module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript', tsx: true }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // ESM-only packages must be transformed too.
  transformIgnorePatterns: ['^(?!.*/node_modules/(@whiskeysockets|whatsapp-rust-bridge|cookie|@fastify/cookie|content-disposition|file-type|strtok3|token-types|peek-readable|@tokenizer/token|@tokenizer/inflate|uint8array-extras|@borewit/text-codec)/).*/node_modules/'],
  testMatch: ['<rootDir>/kernel/*/test/**/*.test.ts', '<rootDir>/plugins/*/test/**/*.test.ts', '<rootDir>/channels/*/test/**/*.test.ts'],
  globalSetup: '<rootDir>/kernel/testing/src/global-setup.ts',
  globalTeardown: '<rootDir>/kernel/testing/src/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
