/** The conversation store contract on every implementation: memory, file, Redis (a real redis-server). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { FileConversationStore } from '../../src/conversation/file-store.js';
import { MemoryConversationStore } from '../../src/conversation/memory-store.js';
import { createRedisConversationStore } from '../../src/toolcache/stores/redis.js';
import { sharedRedis, uniqueNamespace } from '../toolcache/redis-fixtures/server.js';
import { describeConversationStore } from './store-contract.js';

let redis: { readonly url: string; release(): Promise<void> };
const dirs: string[] = [];
beforeAll(async () => {
  redis = await sharedRedis();
});
afterAll(async () => {
  await redis.release();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describeConversationStore('memory', async () => new MemoryConversationStore());
describeConversationStore('file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cachepoint-conv-'));
  dirs.push(dir);
  return new FileConversationStore({ dir });
});
describeConversationStore('redis', () => createRedisConversationStore({ url: redis.url, namespace: uniqueNamespace('conv') }));
