import { defineConfig } from 'vitest/config';

// The consumer-project tests: pack cachepoint and install it next to the oldest and the
// latest supported @anthropic-ai/sdk, and without it, and next to the oldest and the latest
// ai + @ai-sdk/anthropic of each supported AI SDK major (slow: npm installs). Run by .ci/run
// after `npm test`. One file at a time: each builds dist/ and packs it.
export default defineConfig({
  test: {
    include: ['test/consumer/**/*.consumer.ts'],
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
