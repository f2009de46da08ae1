/**
 * A Redis that comes back with older data: a crash of a server that persists (RDB snapshots are on in Redis's
 * default configuration), or a failover to a replica that lagged. The invalidations made after that data was saved
 * are lost, so entries they evicted are back; the store must not serve them.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';
import { openStore, rawClient, type TestStore, until } from './redis-fixtures/helpers.js';
import { type RedisServerHandle, startRedisServer, uniqueNamespace } from './redis-fixtures/server.js';

let server: RedisServerHandle;
const opened: TestStore[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});

afterAll(async () => {
  for (const s of opened) await s.store.close();
  await server.destroy();
});

function replica(ts: TestStore, files: Map<string, string>) {
  const cache = new ToolCache({ store: ts.store, session: 'conv' });
  cache.register('Read', { cacheable: true, ttl: { turns: 100 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  let n = 0;
  const read = (path: string): Promise<ToolCallResult> =>
    cache.call('Read', { path }, (a: { path: string }) => files.get(a.path) ?? '', { scope: 's', callId: `r${++n}` });
  const write = (path: string, content: string): Promise<ToolCallResult> =>
    cache.call(
      'Edit',
      { path, content },
      (a: { path: string; content: string }) => {
        files.set(a.path, a.content);
        return 'ok';
      },
      { scope: 's', callId: `w${++n}` },
    );
  return { cache, read, write };
}

describe('RedisToolCacheStore: a server that comes back with older data', () => {
  for (const frontTier of [false, true]) {
    it(`does not serve an entry a write evicted after the snapshot the server restarted from${frontTier ? ' (front tier)' : ''}`, async () => {
      const ns = uniqueNamespace('restore');
      const options = { commandTimeoutMs: 500, maxReconnectDelayMs: 50, ...(frontTier ? { frontTier: { leaseMs: 200 }, ackTimeoutMs: 400 } : {}) };
      const files = new Map([['a', 'v1']]);
      const aStore = await openStore(server.url, ns, options);
      const bStore = await openStore(server.url, ns, options);
      opened.push(aStore, bStore);
      const a = replica(aStore, files);
      const b = replica(bStore, files);
      expect((await a.read('a')).cache).toMatchObject({ type: 'miss', inserted: true });

      const raw = await rawClient(server.url);
      const other = `{${ns}-other}:e:k`;
      await raw.set(other, 'another namespace');
      await raw.sendCommand(['SAVE']); // the server's snapshot holds the v1 entry (what a periodic RDB save does)
      await raw.quit();

      await a.write('a', 'v2'); // evicts it: after the snapshot
      expect((await b.read('a')).content).toBe('v2'); // a miss, caches v2

      // The server crashes and restarts from its snapshot: the v1 entry and the epoch of that moment are back.
      await server.stop();
      await server.start();
      expect(await until(() => aStore.store.stats.connected && bStore.store.stats.connected)).toBe(true);

      for (const r of [a, b]) {
        const x = await r.read('a');
        expect(String(x.content)).toMatch(/^v2/);
      }
      // Only this namespace was wiped.
      const after = await rawClient(server.url);
      expect(await after.get(other)).toBe('another namespace');
      await after.quit();
    }, 30_000);
  }
});

describe('RedisToolCacheStore: a server that may evict keys', () => {
  it('warns when maxmemory-policy lets Redis evict the tag sets writes rely on, and not under noeviction', async () => {
    const raw = await rawClient(server.url);
    try {
      await raw.configSet({ maxmemory: '512mb', 'maxmemory-policy': 'allkeys-lru' });
      const evicting = await openStore(server.url, uniqueNamespace('evict'));
      opened.push(evicting);
      await replica(evicting, new Map([['a', 'v1']])).read('a');
      expect(evicting.warnings.filter((w) => w.code === 'eviction_policy')).toHaveLength(1);
      expect(evicting.warnings.find((w) => w.code === 'eviction_policy')?.message).toContain('allkeys-lru');

      await raw.configSet({ maxmemory: '512mb', 'maxmemory-policy': 'noeviction' });
      const safe = await openStore(server.url, uniqueNamespace('evict'));
      opened.push(safe);
      await replica(safe, new Map([['a', 'v1']])).read('a');
      expect(safe.warnings.map((w) => w.code)).not.toContain('eviction_policy');
    } finally {
      await raw.configSet({ maxmemory: '0', 'maxmemory-policy': 'noeviction' });
      await raw.quit();
    }
  });
});

describe('RedisToolCacheStore: native expiry of a second TTL', () => {
  it('counts from the start of the miss, as the cache does, not from the insert (a slow tool leaves less lifetime)', async () => {
    const ns = uniqueNamespace('px');
    const ts = await openStore(server.url, ns);
    opened.push(ts);
    let t = 1_700_000_000_000;
    const cache = new ToolCache({ store: ts.store, now: () => t });
    cache.register('Stat', { cacheable: true, ttl: { seconds: 10 }, reads: ['file'] });
    const r = await cache.call(
      'Stat',
      { path: 'a' },
      async () => {
        t += 4_000; // the tool takes 4 s on the cache's clock: its answer is 4 s old when it is stored
        return 'size 1';
      },
      { scope: 's', callId: 'c1' },
    );
    expect(r.cache).toMatchObject({ type: 'miss', inserted: true });
    const raw = await rawClient(server.url);
    const pttl = await raw.pTTL(`{${ns}}:e:${cache.keyOf('Stat', { path: 'a' }, 's')}`);
    await raw.quit();
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(6_000);
  });
});
