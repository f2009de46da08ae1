import { afterAll, beforeAll } from 'vitest';
import { createRedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';
import { describeToolCacheStore } from './store-contract.js';

// The same contract the memory store passes, against a real redis-server:
// plain, and with the in-process front tier in front of it.
let redis: { readonly url: string; release(): Promise<void> };
beforeAll(async () => {
  redis = await sharedRedis();
});
afterAll(async () => {
  await redis.release();
});

const quiet = (): void => undefined;
describeToolCacheStore('redis', () => createRedisToolCacheStore({ url: redis.url, namespace: uniqueNamespace('contract'), onWarning: quiet }));
describeToolCacheStore('redis + front tier', () =>
  createRedisToolCacheStore({ url: redis.url, namespace: uniqueNamespace('contract-front'), frontTier: true, onWarning: quiet }),
);
