/**
 * The conversation store contract on Redis (a real redis-server; skipped with a
 * loud line where there is none, outside CI: see vitest.config.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { createRedisConversationStore } from '../../src/toolcache/stores/redis.js';
import { sharedRedis, uniqueNamespace } from '../toolcache/redis-fixtures/server.js';
import { describeConversationStore } from './store-contract.js';

let redis: { readonly url: string; release(): Promise<void> };
beforeAll(async () => {
  redis = await sharedRedis();
});
afterAll(async () => {
  await redis.release();
});

describeConversationStore('redis', () => createRedisConversationStore({ url: redis.url, namespace: uniqueNamespace('conv') }));
