/**
 * A write to everything on Redis (a tool the cache was never told about, `~all`): it must cost O(1) however many
 * entries the namespace holds (no script that walks a set of every key), and still leave no replica an answer it
 * made stale, under the interleavings race13 tested on one process: a read overlapping it, a read that starts after
 * it returned and would join a run begun before it, a writer that dies between its mark and its invalidation, a
 * failed write, the namespace flushed in between. Real files in a temporary directory, a real shell, a real
 * redis-server (REDIS_URL, or a private one); no sleeps for expiry.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { EVERYTHING_TAG } from '../../src/toolcache/store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { unmark } from './helpers.js';
import { entry, rawClient, type TestStore, twoStores, until, useSharedRedis } from './redis-fixtures/helpers.js';
import { uniqueNamespace } from './redis-fixtures/server.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-everything-'));
  for (let i = 0; i < 40; i++) writeFileSync(join(dir, `f${i}.ts`), `v1 of f${i}`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const onDisk = (path: string): string => readFileSync(join(dir, path), 'utf8');
const bash = (a: { command: string }) => execFileSync('bash', ['-c', a.command], { cwd: dir, encoding: 'utf8' });

/** A replica that declares only its reads: every other tool is a write to everything. */
function replica(ts: TestStore) {
  const cache = new ToolCache({ store: ts.store, session: 'conv-1', flightTimeoutMs: 5000 });
  cache.register('Read', { cacheable: true, ttl: { seconds: 600 }, reads: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] });
  let n = 0;
  const read = (path: string, run: (a: { file_path: string }) => unknown = (a) => onDisk(a.file_path)) =>
    cache.call('Read', { file_path: path }, run as never, { scope: '', callId: `r${++n}` });
  const shell = (command: string) => cache.call('Bash', { command }, bash, { scope: '', callId: `b${++n}` });
  return { cache, read, shell };
}

/** A read on `r` in flight: its tool has read the file and returns once `release` is called. */
async function readInFlight(r: ReturnType<typeof replica>, path: string) {
  let release!: () => void;
  const gate = new Promise<void>((done) => (release = done));
  let started = false;
  const result = r.read(path, async (x) => {
    const v = onDisk(x.file_path);
    started = true;
    await gate;
    return v;
  });
  await until(() => started);
  return { result, release };
}

describe('RedisToolCacheStore: a write to everything', () => {
  const redis = useSharedRedis();

  for (const frontTier of [false, true]) {
    const label = frontTier ? ' (front tiers)' : '';
    const options = frontTier ? { frontTier: { leaseMs: 200 } } : {};

    it(`deletes no entry one by one and keeps no set of every key, yet no replica serves what it made stale${label}`, async () => {
      const ns = uniqueNamespace('everything');
      const [aStore, bStore] = await twoStores(redis.url(), ns, redis.opened, options);
      const a = replica(aStore);
      const b = replica(bStore);
      for (let i = 0; i < 40; i++) await b.read(`f${i}.ts`);
      expect((await b.read('f0.ts')).cache.type).toBe('hit');
      const raw = await rawClient(redis.url());
      try {
        const entries = async () => (await raw.keys(`{${ns}}:e:*`)).length;
        expect(await entries()).toBe(40);
        // The set the old design kept (every key of the namespace, walked by one script on each such write).
        expect(await raw.exists(`{${ns}}:t:${EVERYTHING_TAG}`)).toBe(0);
        const w = await a.shell("sed -i 's/v1/v2/' f0.ts");
        expect(w.cache).toEqual({ type: 'bypass', reason: 'undeclared' });
        expect(await entries()).toBe(40); // unreachable, not deleted: they leave by their TTL (or when a read meets one)
        expect(await raw.pTTL(`{${ns}}:e:${b.cache.keyOf('Read', { file_path: 'f1.ts' }, '')}`)).toBeGreaterThan(0);
        expect(unmark((await b.read('f0.ts')).content)).toBe('v2 of f0');
        for (let i = 1; i < 40; i++) expect((await b.read(`f${i}.ts`)).cache.type).toBe('miss');
        expect((await b.read('f1.ts')).cache.type).toBe('hit');
        expect(await entries()).toBe(40); // the dead ones a read met were replaced
      } finally {
        await raw.quit();
      }
    });

    it(`a read on another replica overlapping it is not cached; one that starts after it returned reads the new file${label}`, async () => {
      const [aStore, bStore] = await twoStores(redis.url(), uniqueNamespace('everything'), redis.opened, options);
      const a = replica(aStore);
      const b = replica(bStore);
      const { result: slow, release } = await readInFlight(b, 'f0.ts');
      await a.shell("sed -i 's/v1/v2/' f0.ts");
      release();
      expect((await slow).content).toBe('v1 of f0'); // it overlapped the write: either side is correct
      expect((await slow).cache).toMatchObject({ type: 'miss', inserted: false });
      expect(unmark((await b.read('f0.ts')).content)).toBe('v2 of f0');
      expect(unmark((await b.read('f0.ts')).content)).toBe('v2 of f0');
    });

    it(`a read that starts after it returned does not take the answer of a run that began before it (another replica's flight)${label}`, async () => {
      const ns = uniqueNamespace('everything');
      const [aStore, bStore] = await twoStores(redis.url(), ns, redis.opened, options);
      const [cStore] = await twoStores(redis.url(), ns, redis.opened, options);
      const a = replica(aStore);
      const b = replica(bStore);
      const c = replica(cStore);
      const { result: first, release } = await readInFlight(b, 'f0.ts');
      await a.shell("sed -i 's/v1/v2/' f0.ts");
      const second = c.read('f0.ts'); // B's run holds the flight: C waits for it, then must not take v1
      await until(() => cStore.store.stats.flightWaits === 1);
      release();
      expect((await first).content).toBe('v1 of f0');
      expect(unmark((await second).content)).toBe('v2 of f0');
      expect(unmark((await c.read('f0.ts')).content)).toBe('v2 of f0');
      expect(unmark((await b.read('f0.ts')).content)).toBe('v2 of f0');
    });

    it(`a failed undeclared tool that wrote half-way leaves no replica the old answer${label}`, async () => {
      const [aStore, bStore] = await twoStores(redis.url(), uniqueNamespace('everything'), redis.opened, options);
      const a = replica(aStore);
      const b = replica(bStore);
      await b.read('f0.ts');
      expect((await b.read('f0.ts')).cache.type).toBe('hit');
      await expect(a.shell("sed -i 's/v1/v2/' f0.ts && exit 1")).rejects.toThrow();
      expect(unmark((await b.read('f0.ts')).content)).toBe('v2 of f0');
    });
  }

  it('a writer that dies between its mark and its invalidation: no replica caches what it read meanwhile', async () => {
    const [aStore, bStore] = await twoStores(redis.url(), uniqueNamespace('everything'), redis.opened);
    const b = replica(bStore);
    await b.read('f0.ts');
    // What ToolCache does for an undeclared tool, cut short: the mark, the tool (a real shell), and no invalidation.
    await aStore.store.beginWrite([EVERYTHING_TAG], 'dying-writer');
    const r1 = await b.read('f0.ts');
    expect(r1.cache).toMatchObject({ type: 'miss' }); // the mark made the entry before it unreachable
    bash({ command: "sed -i 's/v1/v2/' f0.ts" }); // the dying writer's tool runs after B read v1
    expect(r1.content).toBe('v1 of f0');
    expect(r1.cache).toMatchObject({ inserted: false }); // refused while the mark stands, so v1 is not served below
    expect(unmark((await b.read('f0.ts')).content)).toBe('v2 of f0');
  });

  it('a flight is not held up, nor a waiter answered, by an entry a write to everything left unreachable', async () => {
    const [aStore] = await twoStores(redis.url(), uniqueNamespace('everything'), redis.opened);
    const s = aStore.store;
    const e = entry('Read:s:dead', ['file:a.ts', EVERYTHING_TAG], { ttlMs: 600_000, expiresAtMs: Date.now() + 600_000 });
    expect(await s.insertIfEpoch(e, await s.epoch())).toBe(true);
    await s.invalidate([EVERYTHING_TAG]);
    expect(await s.flight.wait(e.key, 50)).toBeUndefined(); // no lock, no live entry: run it yourself
    expect(await s.flight.acquire(e.key, 'tok', 1000)).toBe(true);
    await s.flight.release(e.key, 'tok');
  });

  it('serves no entry written in a format without its insert epoch (a version before this one)', async () => {
    const ns = uniqueNamespace('everything');
    const [aStore] = await twoStores(redis.url(), ns, redis.opened);
    const a = replica(aStore);
    await a.read('f0.ts');
    const raw = await rawClient(redis.url());
    try {
      const key = `{${ns}}:e:${a.cache.keyOf('Read', { file_path: 'f0.ts' }, '')}`;
      const value = String(await raw.get(key));
      await raw.set(key, value.replace(/^\{"v":4,"g":\d+,/, '{"v":2,'));
      writeFileSync(join(dir, 'f0.ts'), 'v2 of f0');
      expect(await a.read('f0.ts')).toMatchObject({ content: 'v2 of f0', cache: { type: 'miss' } });
    } finally {
      await raw.quit();
    }
  });
});
