import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrontTier } from '../../src/toolcache/stores/redis-front.js';
import { entry, openStore, rawClient, sleep, type TestStore, until } from './redis-fixtures/helpers.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';

function leasedTier(options: { maxEntries?: number; leaseMs?: number } = {}): FrontTier {
  const t = new FrontTier({ leaseMs: 10_000, ...options });
  t.heartbeatReceived(t.heartbeatSent());
  return t;
}

describe('FrontTier', () => {
  it('serves nothing and accepts nothing before its first heartbeat returns', () => {
    const t = new FrontTier({});
    expect(t.offer(entry('k'), t.ticket())).toBe(false);
    const n = t.heartbeatSent();
    expect(t.leased()).toBe(false);
    t.heartbeatReceived(n);
    expect(t.leased()).toBe(true);
    expect(t.offer(entry('k'), t.ticket())).toBe(true);
    expect(t.get('k')?.key).toBe('k');
  });

  it('refuses a fill whose read started before an invalidation or reset (the front tier’s epoch guard)', () => {
    const t = leasedTier();
    const before = t.ticket();
    t.evictTags(['file:unrelated']);
    expect(t.offer(entry('k', ['file:a']), before)).toBe(false);
    const before2 = t.ticket();
    t.reset();
    t.heartbeatReceived(t.heartbeatSent());
    expect(t.offer(entry('k'), before2)).toBe(false);
    expect(t.offer(entry('k'), t.ticket())).toBe(true);
  });

  it('evicts by tag and clears everything once the lease lapses', async () => {
    const t = leasedTier({ leaseMs: 60 });
    const tk = t.ticket();
    t.offer(entry('a', ['file:a', 'family:file']), tk);
    t.offer(entry('b', ['file:b']), tk);
    expect(t.evictTags(['file:a'])).toBe(1);
    expect(t.get('a')).toBeUndefined();
    expect(t.get('b')).toBeDefined();
    await sleep(80);
    expect(t.get('b')).toBeUndefined();
    expect(t.size).toBe(0);
    expect(t.resets).toBe(1);
  });

  it('drops expired entries on sight and the least recently used beyond maxEntries', () => {
    const t = leasedTier({ maxEntries: 2 });
    const tk = t.ticket();
    // A lifetime of 0: gone at once (the tier times entries on its own monotonic clock, from `ttlMs`).
    t.offer(entry('old', [], { expiresAtMs: Date.now(), ttlMs: 0 }), tk);
    expect(t.get('old')).toBeUndefined();
    t.offer(entry('a'), tk);
    t.offer(entry('b'), tk);
    t.get('a');
    t.offer(entry('c'), tk);
    expect(t.get('b')).toBeUndefined();
    expect(t.get('a')).toBeDefined();
    expect(t.get('c')).toBeDefined();
  });

  it('bases the lease on when the heartbeat was sent, not when it came back', async () => {
    const t = new FrontTier({ leaseMs: 50 });
    const n = t.heartbeatSent();
    await sleep(60);
    t.heartbeatReceived(n); // arrived after its whole lease: it proves nothing for now
    expect(t.leased()).toBe(false);
  });
});

/** Front-tier options for tests that need the lease held throughout: a late heartbeat (a loaded machine) cannot lapse it. */
const LONG_LEASE = { frontTier: { leaseMs: 10_000 }, ackTimeoutMs: 20_000 } as const;

describe('RedisToolCacheStore front tier', () => {
  let redis: { readonly url: string; release(): Promise<void> };
  const opened: TestStore[] = [];
  beforeAll(async () => {
    redis = await sharedRedis();
  });
  afterAll(async () => {
    for (const s of opened) await s.store.close();
    await redis.release();
  });

  it('answers a hot hit from memory without asking Redis, until another replica invalidates it', async () => {
    const ns = uniqueNamespace('front');
    // A lease and an ack wait far above any stall of a loaded machine: this test is about acks, not lapses.
    const a = await openStore(redis.url, ns, LONG_LEASE);
    const b = await openStore(redis.url, ns, { ackTimeoutMs: LONG_LEASE.ackTimeoutMs });
    opened.push(a, b);
    expect(await until(() => a.store.frontTierLeased)).toBe(true);
    const e = entry('k', ['file:a']);
    expect(await a.store.insertIfEpoch(e, await a.store.epoch())).toBe(true);
    // Overwrite the Redis copy behind the store's back (no invalidation): a front-tier hit cannot see it.
    const raw = await rawClient(redis.url);
    await raw.set(`{${ns}}:e:k`, JSON.stringify({ v: 1, e: { ...e, content: 'changed behind the cache' } }));
    expect((await a.store.get('k'))?.content).toBe(e.content);
    expect(a.store.stats.frontHits).toBe(1);
    // B's invalidation resolves only after A's front tier acknowledged the eviction.
    await b.store.invalidate(['file:a']);
    expect(await a.store.get('k')).toBeUndefined();
    expect(a.store.stats.frontEvictions).toBe(1);
    expect(b.store.stats.ackTimeouts).toBe(0);
    raw.destroy();
  });

  it('ignores malformed messages on its channels and keeps working', async () => {
    const ns = uniqueNamespace('front-garbage');
    const a = await openStore(redis.url, ns, LONG_LEASE);
    opened.push(a);
    expect(await until(() => a.store.frontTierLeased)).toBe(true);
    await a.store.insertIfEpoch(entry('k', ['t']), await a.store.epoch());
    const raw = await rawClient(redis.url);
    for (const junk of ['not json', '{"t":"inv"}', '{"t":"hb","n":"x"}', 'null', '{"t":"ack","id":1}']) {
      await raw.publish(`{${ns}}:inv`, junk);
      await raw.publish(`{${ns}}:s:${a.store.id}`, junk);
    }
    raw.destroy();
    await sleep(50);
    expect(a.store.frontTierLeased).toBe(true);
    expect((await a.store.get('k'))?.key).toBe('k');
    expect(a.store.stats.frontHits).toBe(1);
  });
});
