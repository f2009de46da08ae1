/**
 * What `evictions.write` counts for a write to everything (`~all`: a tool the cache was never told about) on Redis.
 * The write is O(1) there (redis-everything.test.ts): it deletes no entry, it moves `{ns}:all`, so it cannot say at
 * once how many entries it made unreachable without walking them. The count is taken when a read meets one of them
 * and deletes it: each entry the write kept from being served counts once, fleet-wide, attributed to its tool, on
 * the replica whose read deleted it; an entry no read meets again expires by its TTL, uncounted. (The memory store
 * deletes every entry at the write and counts them then.) Real redis-server, real files, a real shell.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import type { ToolCacheStore } from '../../src/toolcache/store.js';
import { rawClient, twoStores, until, useSharedRedis } from './redis-fixtures/helpers.js';
import { uniqueNamespace } from './redis-fixtures/server.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-everything-count-'));
  for (let i = 0; i < 5; i++) writeFileSync(join(dir, `f${i}.ts`), `v1 of f${i}`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A replica that declares its reads (Read, and Glob on the same files) only: Bash is a write to everything. */
function replica(store?: ToolCacheStore) {
  const cache = new ToolCache({ ...(store ? { store } : {}), session: 'conv-1', flightTimeoutMs: 5000 });
  const file = { cacheable: true, ttl: { seconds: 600 }, reads: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] } as const;
  cache.register('Read', file);
  cache.register('Stat', file);
  let n = 0;
  const call = (tool: 'Read' | 'Stat', path: string) =>
    cache.call(tool, { file_path: path }, (a: { file_path: string }) => readFileSync(join(dir, a.file_path), 'utf8'), { scope: '', callId: `c${++n}` });
  const shell = (command: string) =>
    cache.call('Bash', { command }, (a: { command: string }) => execFileSync('bash', ['-c', a.command], { cwd: dir, encoding: 'utf8' }), {
      scope: '',
      callId: `b${++n}`,
    });
  const written = () => cache.stats().evictions.write;
  return { cache, read: (path: string) => call('Read', path), stat: (path: string) => call('Stat', path), shell, written };
}

describe('evictions.write for a write to everything', () => {
  const redis = useSharedRedis();

  it('memory store: every entry is deleted and counted at the write', async () => {
    const r = replica();
    for (let i = 0; i < 5; i++) await r.read(`f${i}.ts`);
    await r.stat('f0.ts');
    await r.shell("sed -i 's/v1/v2/' f0.ts");
    expect(r.written()).toBe(6);
    expect(r.cache.stats().perTool.Read?.evictions.write).toBe(5);
    expect(r.cache.stats().perTool.Stat?.evictions.write).toBe(1);
  });

  for (const frontTier of [false, true]) {
    const label = frontTier ? ' (front tiers)' : '';
    const options = frontTier ? { frontTier: { leaseMs: 200 } } : {};

    it(`Redis: each entry it made unreachable counts once, fleet-wide, when a read meets and deletes it${label}`, async () => {
      const ns = uniqueNamespace('everything-count');
      const [aStore, bStore] = await twoStores(redis.url(), ns, redis.opened, options);
      const a = replica(aStore.store);
      const b = replica(bStore.store);
      for (let i = 0; i < 5; i++) await b.read(`f${i}.ts`);
      await b.stat('f0.ts');
      expect((await b.read('f0.ts')).cache.type).toBe('hit');
      await a.shell("sed -i 's/v1/v2/' f0.ts");
      // O(1): nothing deleted, nothing counted yet.
      expect([a.written(), b.written()]).toEqual([0, 0]);

      // B meets two dead Read entries and the dead Stat entry: three counted, by tool, on B.
      for (const read of [() => b.read('f0.ts'), () => b.read('f1.ts'), () => b.stat('f0.ts')]) expect((await read()).cache.type).toBe('miss');
      expect(await until(() => b.written() === 3, 5000)).toBe(true);
      expect(b.cache.stats().perTool.Read?.evictions.write).toBe(2);
      expect(b.cache.stats().perTool.Stat?.evictions.write).toBe(1);
      expect(a.written()).toBe(0);

      // Both replicas meet f2's dead entry at once: it counts once in all (one DEL deletes it).
      await Promise.all([a.read('f2.ts'), b.read('f2.ts')]);
      expect(await until(() => a.written() + b.written() === 4, 5000)).toBe(true);

      // What replaced a dead entry is live: hits count nothing; f3 and f4, never read again, are never counted.
      expect((await b.read('f0.ts')).cache.type).toBe('hit');
      expect((await b.read('f1.ts')).cache.type).toBe('hit');
      const raw = await rawClient(redis.url());
      try {
        // A command after every script the reads sent has its answer after theirs: nothing is left to count.
        expect((await raw.keys(`{${ns}}:e:*`)).length).toBe(6);
      } finally {
        await raw.quit();
      }
      expect(a.written() + b.written()).toBe(4);
    });
  }

  it('Redis: a declared write still counts what it evicted at once (tag sets are walked)', async () => {
    const [aStore, bStore] = await twoStores(redis.url(), uniqueNamespace('everything-count'), redis.opened);
    const a = replica(aStore.store);
    const b = replica(bStore.store);
    a.cache.register('Edit', { writes: ['file'], tags: (x: { file_path: string }) => [fileTag(x.file_path)] });
    await b.read('f0.ts');
    await b.stat('f0.ts');
    await b.read('f1.ts');
    const w = await a.cache.call('Edit', { file_path: 'f0.ts' }, () => 'ok', { scope: '', callId: 'e1' });
    expect(w.cache).toMatchObject({ type: 'write', ok: true });
    expect(a.written()).toBe(2);
    expect(a.cache.stats().perTool.Read?.evictions.write).toBe(1);
  });
});
