import { defineConfig } from 'vitest/config';

// The consumer-project test: packs cachepoint and installs it next to the oldest and
// the latest supported @anthropic-ai/sdk (slow: npm installs). Run by .ci/run after `npm test`.
export default defineConfig({
  test: {
    include: ['test/consumer/**/*.consumer.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
