/**
 * `npm test`: unit specs next to the code, e2e suites on a real PostgreSQL (embedded unless
 * TEST_DATABASE_URL), the fuzz test with its small, fixed-seed budget (test/fuzz), and the
 * TypeScript client's tests (clients/typescript/test: against the service, and its types).
 */
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  testRegex: ['src/.*\\.spec\\.ts$', 'test/e2e/.*\\.e2e-spec\\.ts$', 'test/fuzz/.*\\.fuzz-spec\\.ts$', 'clients/typescript/test/.*spec\\.ts$'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  maxWorkers: 2,
  testTimeout: 30000,
};
