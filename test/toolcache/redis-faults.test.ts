/**
 * Faults, against a private redis-server this file stops, restarts and freezes
 * (SIGSTOP: a server that answers nothing, i.e. "slow"). Through the real
 * ToolCache: every call succeeds with the current truth, no hit is ever stale,
 * the store warns once per outage, counts, and recovers by itself.
 */

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { RedisStoreError } from '../../src/toolcache/stores/redis.js';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';
import { entry, openStore, sleep, type TestStore, until } from './redis-fixtures/helpers.js';
import { freePort, type RedisServerHandle, startRedisServer, uniqueNamespace } from './redis-fixtures/server.js';

let server: RedisServerHandle;
const opened: TestStore[] = [];

async function open(options: Parameters<typeof openStore>[2] = {}, ns = uniqueNamespace('fault')): Promise<TestStore> {
  const s = await openStore(server.url, ns, { commandTimeoutMs: 200, maxReconnectDelayMs: 200, ...options });
  opened.push(s);
  return s;
}

/** A replica: a ToolCache on `store` in front of an in-memory file system (the truth). */
function replica(ts: TestStore, files: Map<string, string>) {
  const cache = new ToolCache({ store: ts.store, flightTimeoutMs: 2000 });
  cache.register('Read', { cacheable: true, ttl: { turns: 100 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  let n = 0;
  const read = async (path: string): Promise<ToolCallResult> => {
    const r = await cache.call('Read', { path }, (a: { path: string }) => files.get(a.path) ?? '', { scope: 's', callId: `r${++n}` });
    return { ...r, content: String(r.content).replace(/\n\[cached\]$/, '') };
  };
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

beforeAll(async () => {
  server = await startRedisServer();
});

afterEach(async () => {
  for (const s of opened.splice(0)) await s.store.close();
  // Every test starts from a running, empty server, whatever the previous one did to it.
  await server.stop();
  await server.start();
});

afterAll(async () => {
  await server.destroy();
});

describe('RedisToolCacheStore faults', () => {
  for (const frontTier of [false, true]) {
    it(`keeps calls succeeding with fresh answers while redis-server is stopped, and recovers after restart${frontTier ? ' (front tier)' : ''}`, async () => {
      const files = new Map([
        ['a', 'a0'],
        ['b', 'b0'],
      ]);
      // A command timeout well above a loaded machine's stalls: a 200 ms one once timed a command out before the
      // outage (at load 20), which counted as a second outage. The stopped server refuses at once, timeout or not.
      const ts = await open({ frontTier: frontTier ? { leaseMs: 200 } : false, ackTimeoutMs: 400, commandTimeoutMs: 2000 });
      if (frontTier) expect(await until(() => ts.store.frontTierLeased)).toBe(true);
      const r = replica(ts, files);
      expect((await r.read('a')).cache.type).toBe('miss');
      expect((await r.read('a')).cache.type).toBe('hit');

      await server.stop();
      // The store learns of the outage when its connections see the close, which can come a moment after the
      // server's exit; until then a front tier still inside its lease may serve (by design, see redis-front.ts).
      // The outage below starts once the store knows it: no connection, no lease.
      expect(await until(() => !ts.store.stats.connected && !ts.store.frontTierLeased)).toBe(true);
      const during: ToolCallResult[] = [];
      const readFresh = async (path: string): Promise<void> => {
        const x = await r.read(path);
        expect(x.content).toBe(files.get(path));
        during.push(x);
      };
      for (let i = 1; i <= 4; i += 1) {
        await readFresh('a');
        await readFresh('b');
        await r.write('a', `a${i}`);
        await readFresh('a');
      }
      // Nothing came from the cache while it could not be checked.
      expect(during.filter((c) => c.cache.type === 'hit')).toEqual([]);
      expect(ts.store.stats.connected).toBe(false);
      expect(ts.store.stats.outages).toBe(1);
      expect(ts.store.stats.commandErrors).toBeGreaterThan(1);
      expect(ts.warnings.filter((w) => w.code === 'redis_unreachable')).toHaveLength(1);
      expect(r.cache.stats().storeErrors).toBeGreaterThan(0);

      await server.start();
      // The client reconnects by itself; caching resumes and every answer is the truth.
      expect(
        await until(
          async () => {
            const x = await r.read('a');
            expect(x.content).toBe(files.get('a'));
            return x.cache.type === 'hit';
          },
          15_000,
          50,
        ),
      ).toBe(true);
      expect(ts.store.stats.recoveries).toBeGreaterThanOrEqual(1);
      expect(ts.warnings.map((w) => w.code)).toContain('redis_recovered');
      await r.write('b', 'b9');
      expect((await r.read('b')).content).toBe('b9');
    }, 30_000);
  }

  it('never serves a stale hit when redis-server freezes (slow) while another replica writes', async () => {
    const files = new Map([['a', 'v1']]);
    const ns = uniqueNamespace('freeze');
    // A gives up on a command sooner than B's lease lasts: its failed invalidation alone does not outwait that lease.
    const a = replica(await open({ commandTimeoutMs: 100, frontTier: { leaseMs: 400 }, ackTimeoutMs: 800 }, ns), files);
    const bStore = await open({ frontTier: { leaseMs: 400 }, ackTimeoutMs: 800 }, ns);
    const b = replica(bStore, files);
    expect(await until(() => bStore.store.frontTierLeased)).toBe(true);
    await b.read('a');
    expect((await b.read('a')).cache.type).toBe('hit'); // from B's front tier

    server.freeze();
    // A's write succeeds; its invalidation cannot complete, so A remembers it, and returns only once B's lease
    // (which rests on a heartbeat sent before the freeze) has lapsed: B, asked right after, serves nothing stale.
    const w = await a.write('a', 'v2');
    expect(w.cache).toEqual({ type: 'write', ok: true, evicted: [] });
    expect(bStore.store.frontTierLeased).toBe(false);
    for (const r of [a, b]) {
      const x = await r.read('a');
      expect(x.content).toBe('v2');
      expect(x.cache.type).toBe('bypass');
    }
    expect(bStore.store.frontTierLeased).toBe(false);

    server.thaw();
    for (let i = 0; i < 40; i += 1) {
      for (const r of [a, b]) expect((await r.read('a')).content).toBe('v2');
      await sleep(25);
    }
    // Caching resumes (once the clients are back: a moment, or longer on a loaded machine), still with the truth.
    expect(
      await until(
        async () => {
          const x = await b.read('a');
          expect(x.content).toBe('v2');
          return x.cache.type === 'hit';
        },
        15_000,
        25,
      ),
    ).toBe(true);
  }, 30_000);

  it('re-sends a pending invalidation by itself, so a replica that reads first after the outage gets no stale hit', async () => {
    const files = new Map([['a', 'v1']]);
    const ns = uniqueNamespace('resend');
    const aStore = await open({ ackTimeoutMs: 400 }, ns);
    const a = replica(aStore, files);
    const b = replica(await open({ ackTimeoutMs: 400 }, ns), files);
    await b.read('a');
    expect((await b.read('a')).cache.type).toBe('hit');

    server.freeze();
    // A's write succeeds; its invalidation cannot reach Redis (kept pending), and the entry stays in Redis.
    expect((await a.write('a', 'v2')).cache).toEqual({ type: 'write', ok: true, evicted: [] });
    server.thaw();
    // A does nothing more: its store re-sends the invalidation on its own once Redis answers.
    expect(await until(() => aStore.store.stats.pendingInvalidationTags === 0)).toBe(true);
    // B, which never saw the write, reads first: the truth, not the entry A's write made stale.
    const x = await b.read('a');
    expect(x.content).toBe('v2');
    expect(x.cache.type).not.toBe('hit');
  });

  it('starts against an unreachable Redis without failing and connects when it appears', async () => {
    const port = await freePort();
    const late = await startRedisServer({ port, start: false });
    try {
      const t0 = performance.now();
      const ts = await openStore(late.url, uniqueNamespace('late'), {
        commandTimeoutMs: 200,
        maxReconnectDelayMs: 100,
        frontTier: { leaseMs: 200 },
        ackTimeoutMs: 400,
      });
      opened.push(ts);
      expect(performance.now() - t0).toBeLessThan(5000);
      await expect(ts.store.epoch()).rejects.toBeInstanceOf(RedisStoreError);
      expect(ts.warnings.map((w) => w.code)).toEqual(['redis_unreachable']);
      await late.start();
      expect(
        await until(async () =>
          ts.store.epoch().then(
            () => true,
            () => false,
          ),
        ),
      ).toBe(true);
      expect(await ts.store.insertIfEpoch(entry('k'), await ts.store.epoch())).toBe(true);
      // The subscription that failed at startup is made once the subscriber connects: the front tier comes alive.
      expect(await until(() => ts.store.frontTierLeased)).toBe(true);
    } finally {
      await late.destroy();
    }
  }, 30_000);

  it('keeps an invalidation that could not reach Redis and re-sends it before reading again', async () => {
    const ts = await open();
    const store = ts.store;
    await store.insertIfEpoch(entry('k', ['file:a']), await store.epoch());
    const before = await store.epoch();
    server.freeze();
    const err = await store.invalidate(['file:a']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisStoreError);
    expect((err as RedisStoreError).message).toMatch(
      /^Redis tool-cache store: invalidate failed \(.+\)\. The call runs uncached; check that Redis is reachable/,
    );
    expect(store.stats.pendingInvalidationTags).toBe(1);
    // A re-send of the tags already pending (what a ToolCache does before every read while one is pending) warns no
    // more: review8 saw one warning per tool call during an outage. A write with a tag of its own warns again.
    await store.invalidate(['file:a']).catch(() => undefined);
    await store.invalidate(['file:a']).catch(() => undefined);
    expect(ts.warnings.filter((w) => w.code === 'invalidation_pending')).toHaveLength(1);
    await store.invalidate(['file:b']).catch(() => undefined);
    expect(ts.warnings.filter((w) => w.code === 'invalidation_pending')).toHaveLength(2);
    // While the invalidation is pending and Redis is unreachable, nothing is read.
    await expect(store.get('k')).rejects.toBeInstanceOf(RedisStoreError);
    server.thaw();
    expect(
      await until(async () =>
        store.get('k').then(
          () => true,
          () => false,
        ),
      ),
    ).toBe(true);
    expect(await store.get('k')).toBeUndefined();
    expect(store.stats.pendingInvalidationTags).toBe(0);
    expect(await store.epoch()).toBeGreaterThan(before);
    expect(ts.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(['redis_unreachable', 'invalidation_pending', 'redis_recovered']));
  }, 30_000);
});
