/**
 * The conversation store contract on Redis (a real redis-server; skipped with a
 * loud line where there is none, outside CI: see vitest.config.ts).
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepare } from '../../src/conversation/prepare.js';
import { exportState } from '../../src/conversation/state.js';
import { ConversationConflictError } from '../../src/errors.js';
import { createRedisConversationStore } from '../../src/toolcache/stores/redis.js';
import { sharedRedis, uniqueNamespace } from '../toolcache/redis-fixtures/server.js';
import { BASE, describeConversationStore, requests } from './store-contract.js';

let redis: { readonly url: string; release(): Promise<void> };
beforeAll(async () => {
  redis = await sharedRedis();
});
afterAll(async () => {
  await redis.release();
});

describeConversationStore('redis', () => createRedisConversationStore({ url: redis.url, namespace: uniqueNamespace('conv') }));

describe('a conversation Redis evicted half of (maxmemory with an eviction policy: allkeys-* or volatile-*, its keys have a TTL)', () => {
  // Its two keys (revision, record) can be evicted one without the other. Each half left behind made every
  // save a ConversationConflictError, forever: the documented retry loop spun on it until the idle TTL.
  it.each(['data', 'rev'])('with only its %s key evicted, the next prepare starts it afresh instead of conflicting forever', async (evicted) => {
    const namespace = uniqueNamespace('evict');
    const store = await createRedisConversationStore({ url: redis.url, namespace });
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const all = requests(1, 3);
      await prepare({ ...BASE, messages: all[0]! }, { conversationId: 'c', store, now: 1000 });
      await prepare({ ...BASE, messages: all[1]! }, { conversationId: 'c', store, now: 2000 });
      expect(await raw.del(`${namespace}:conv:{c}:${evicted}`)).toBe(1);

      const { plan } = await prepare({ ...BASE, messages: all[2]! }, { conversationId: 'c', store, now: 3000 });
      expect(plan.revision).toBe(1); // afresh: what was left of the old record is not read
      expect(plan.unsaved).toBeUndefined();
      expect((await store.load('c'))?.revision).toBe(1);
      // A writer that loaded before the eviction gets a typed conflict once, then goes on.
      const loaded = (await store.load('c'))!;
      await raw.del(`${namespace}:conv:{c}:${evicted}`);
      await expect(store.save({ ...loaded, revision: 2 }, 1)).rejects.toBeInstanceOf(ConversationConflictError);
      expect(await store.load('c')).toBeUndefined();
      await store.save({ ...loaded, revision: 1 }, null);
      expect((await store.load('c'))?.revision).toBe(1);
    } finally {
      await raw.quit();
      await store.close();
    }
  });
});

describe('an older build saved over a record with an incarnation (its script leaves the incarnation key, its record has none)', () => {
  it('a writer that loaded that record saves it: the stored record decides, not the key left behind', async () => {
    const namespace = uniqueNamespace('older');
    const store = await createRedisConversationStore({ url: redis.url, namespace });
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const all = requests(1, 2);
      await prepare({ ...BASE, messages: all[0]! }, { conversationId: 'c', store, now: 1000 });
      const current = (await store.load('c'))!;
      expect(current.incarnation).toBeDefined();
      // What an older build's save writes: the next revision and a record without the field; the key stays.
      const { incarnation: _dropped, ...older } = current;
      await raw.set(`${namespace}:conv:{c}:rev`, String(current.revision + 1));
      await raw.set(`${namespace}:conv:{c}:data`, exportState({ ...older, revision: current.revision + 1 }));
      expect(await raw.get(`${namespace}:conv:{c}:inc`)).toBe(current.incarnation);
      const { plan } = await prepare({ ...BASE, messages: all[1]! }, { conversationId: 'c', store, now: 2000 });
      expect(plan.unsaved).toBeUndefined();
      expect((await store.load('c'))!.revision).toBe(current.revision + 2);
      expect(await raw.get(`${namespace}:conv:{c}:inc`)).toBeNull();
    } finally {
      await raw.quit();
      await store.close();
    }
  });
});
