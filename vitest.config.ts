import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    snapshotSerializers: ['./src/testing/vitest-serializer.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
