/** Tests run the TypeScript sources directly (ESM), so a test never sees a stale build. */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }] },
  testTimeout: 20000,
  // One worker per core (Jest's default leaves one core to itself): most suites wait on PostgreSQL, child
  // processes, the browser or timers, so a second worker on a 2-core machine takes the suite from about 9 to 5.5
  // minutes. The tests that measure CPU or memory compare with a reference taken in the same run and conditions.
  maxWorkers: '100%',
};
