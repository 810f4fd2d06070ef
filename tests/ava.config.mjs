// Ava runs the bundles tests/run.ts makes of the test files (npm test); see there.
export default {
  files: ['tests/.compiled/tests/**/*.test.js'],
  timeout: '120s',
  concurrency: 4,
  workerThreads: false,
  nodeArguments: ['--enable-source-maps'],
};
