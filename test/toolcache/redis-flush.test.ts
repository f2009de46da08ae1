/**
 * Redis loses the namespace between a read and a write: FLUSHALL (an operator, a test harness sharing the server),
 * or every key of the namespace deleted. The epoch key is gone, the tag sets are gone, and a front tier may still
 * hold what it served before. A write after that must still leave no replica serving the old answer.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServerHandle, uniqueNamespace } from './redis-fixtures/server.js';
import { rawClient, replica, type TestStore, twoStores, until } from './redis-fixtures/helpers.js';
import { unmark } from './helpers.js';

let redis: RedisServerHandle;
const opened: TestStore[] = [];
beforeAll(async () => {
  redis = await startRedisServer(); // private: FLUSHALL must not wipe other tests' namespaces
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.store.close();
});
afterAll(async () => {
  await redis.destroy();
});

describe('RedisToolCacheStore: the namespace flushed between a read and a write', () => {
  for (const frontTier of [false, true]) {
    // Deleting only the tag sets while entries stay (an allkeys-* eviction policy) is outside the contract: the store
    // warns `eviction_policy` (docs/redis.md); a test of it fails by design.
    for (const [how, writer] of [
      ['FLUSHALL', 'Edit'],
      ['every key of the namespace deleted', 'Edit'],
      ['FLUSHALL', 'an undeclared tool'],
      ['every key of the namespace deleted', 'an undeclared tool'],
    ] as const) {
      it(`${how}${frontTier ? ' (front tiers)' : ''}: a write (${writer}) after it leaves no replica the old answer, and a read in flight across it caches nothing stale`, async () => {
        const ns = uniqueNamespace('flush');
        const options = frontTier ? { frontTier: { leaseMs: 200 } } : {};
        const [aStore, bStore] = await twoStores(redis.url, ns, opened, options);
        const files = new Map([['a', 'v1']]);
        const a = replica(aStore, files);
        const b = replica(bStore, files);
        // One write before: with an epoch that restarts at 0, the flushed namespace's next write would bring it back
        // to the value the slow read captured (ABA), and that read would insert v1 after v2 was written.
        await a.write('a', 'v1');
        await b.read('a');
        expect((await b.read('a')).cache.type).toBe('hit');
        const raw = await rawClient(redis.url);
        try {
          const flush = async () => {
            if (how === 'FLUSHALL') await raw.flushAll();
            else {
              const keys = await raw.keys(`{${ns}}:*`);
              if (keys.length > 0) await raw.del(keys);
            }
          };
          // A read on B starts before the flush (it read v1) and finishes after A's write returned.
          let release!: () => void;
          const gate = new Promise<void>((r) => (release = r));
          let reads = 0;
          const slow = b.cache.call(
            'Read',
            { path: 'a', slow: true },
            async () => {
              reads++;
              const v = files.get('a');
              await gate;
              return v ?? '';
            },
            { scope: 's', callId: 'slow' },
          );
          await until(() => reads === 1);
          await flush();
          // An undeclared tool is a write to everything: on Redis it moves the namespace's generation (the `all` key,
          // flushed too) instead of deleting entries.
          if (writer === 'Edit') expect((await a.write('a', 'v2')).cache).toMatchObject({ type: 'write', ok: true });
          else
            await a.cache.call(
              'Bash',
              { command: 'edit a' },
              () => {
                files.set('a', 'v2');
                return 'ok';
              },
              { scope: 's', callId: 'bash' },
            );
          release();
          expect((await slow).content).toBe('v1'); // it overlapped the write: either side is correct
          for (let i = 0; i < 3; i++) expect(unmark((await b.read('a')).content)).toBe('v2');
          const again = await b.cache.call('Read', { path: 'a', slow: true }, () => files.get('a') ?? '', { scope: 's', callId: 'again' });
          expect(unmark(again.content)).toBe('v2');
        } finally {
          await raw.quit();
        }
      });
    }
  }
});
