/**
 * `npm test`: unit specs next to the code, e2e suites on a real PostgreSQL (embedded unless
 * TEST_DATABASE_URL), the fuzz test with its small, fixed-seed budget (test/fuzz), and the
 * TypeScript client's tests (clients/typescript/test: against the service, and its types).
 */

// Whatever a test starts from this environment delivers webhooks to loopback only (the value of
// test/support/loopback.ts, which createTestApp and ServiceProcess pass explicitly).
process.env.WEBHOOK_ALLOWED_NETWORKS ??= '127.0.0.0/8,::1/128';
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  testRegex: [
    'src/.*\\.spec\\.ts$',
    'test/e2e/.*\\.e2e-spec\\.ts$',
    'test/fuzz/.*\\.fuzz-spec\\.ts$',
    'clients/typescript/test/.*spec\\.ts$',
  ],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  moduleFileExtensions: ['ts', 'js', 'json'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Tests connect to loopback only: any other TCP connection is refused and fails the test file.
  setupFilesAfterEnv: ['<rootDir>/test/support/loopback-only.ts'],
  maxWorkers: 2,
  testTimeout: 30000,
};
