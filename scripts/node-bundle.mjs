/**
 * esbuild's settings for Hearth's bundles, the processes' (scripts/build.mjs) and the test files' (tests/run.ts):
 * ES modules for this Node, with source maps, Hearth's own modules inside, packages left to node_modules.
 */
export const nodeBundle = {
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: `node${process.versions.node}`,
  sourcemap: true,
  logLevel: 'warning',
};
