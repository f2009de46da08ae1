import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { RedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import { entry, openStore, rawClient, sleep, type TestStore } from './redis-fixtures/helpers.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';

let redis: { readonly url: string; release(): Promise<void> };
let raw: Awaited<ReturnType<typeof rawClient>>;
const opened: TestStore[] = [];

async function open(ns: string, options: Parameters<typeof openStore>[2] = {}): Promise<TestStore> {
  const s = await openStore(redis.url, ns, options);
  opened.push(s);
  return s;
}

beforeAll(async () => {
  redis = await sharedRedis();
  raw = await rawClient(redis.url);
});

afterAll(async () => {
  for (const s of opened) await s.store.close();
  raw.destroy();
  await redis.release();
});

describe('RedisToolCacheStore', () => {
  it('stores under the namespace and reads back an equal, frozen entry', async () => {
    const ns = uniqueNamespace('roundtrip');
    const { store } = await open(ns);
    const e = entry('Read|tenant-a|h1', ['file:a'], { content: [{ type: 'text', text: 'hi' }] });
    expect(await store.insertIfEpoch(e, await store.epoch())).toBe(true);
    const got = await store.get(e.key);
    expect(got).toEqual(e);
    expect(Object.isFrozen(got)).toBe(true);
    expect(await raw.exists(`{${ns}}:e:${e.key}`)).toBe(1);
    expect(await raw.sMembers(`{${ns}}:t:file:a`)).toEqual([e.key]);
  });

  it('keeps namespaces apart', async () => {
    const a = (await open(uniqueNamespace('ns-a'))).store;
    const b = (await open(uniqueNamespace('ns-b'))).store;
    await a.insertIfEpoch(entry('k'), await a.epoch());
    expect(await b.get('k')).toBeUndefined();
    expect(await a.get('k')).toBeDefined();
  });

  it('expires second-based entries natively and bounds turn-TTL entries by defaultMaxAgeMs', async () => {
    const ns = uniqueNamespace('expiry');
    const { store } = await open(ns, { defaultMaxAgeMs: 60_000 });
    const ep = await store.epoch();
    // On an injected clock far from Redis's: the native expiry comes from the lifetime (ttlMs), never from
    // comparing expiresAtMs with the real time (which would expire this entry at once).
    await store.insertIfEpoch(entry('sec', ['x'], { insertedAtMs: 1_000, expiresAtMs: 31_000, ttlMs: 30_000 }), ep);
    await store.insertIfEpoch(entry('turn', ['x'], { ttlTurns: 5 }), ep);
    const secTtl = await raw.pTTL(`{${ns}}:e:sec`);
    expect(secTtl).toBeGreaterThan(20_000);
    expect(secTtl).toBeLessThanOrEqual(30_000);
    const pttl = await raw.pTTL(`{${ns}}:e:turn`);
    expect(pttl).toBeGreaterThan(50_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
    // The tag set lives as long as its longest-lived entry.
    expect(await raw.pTTL(`{${ns}}:t:x`)).toBeGreaterThan(50_000);
    expect(await store.get('sec')).toBeDefined();
    expect(await store.get('turn')).toBeDefined();
    // Native expiry itself is Redis's (PX); what an expired key looks like to the store:
    await raw.del(`{${ns}}:e:sec`);
    expect(await store.get('sec')).toBeUndefined();
  });

  it('refuses an insert when another connection invalidated after the epoch was read', async () => {
    const ns = uniqueNamespace('epoch-guard');
    const reader = (await open(ns)).store;
    const writer = (await open(ns)).store;
    const before = await reader.epoch();
    const { epoch: after, evicted } = await writer.invalidate(['file:a']);
    expect(evicted).toEqual([]);
    expect(after).toBe(before + 1);
    expect(await reader.insertIfEpoch(entry('k', ['file:a']), before)).toBe(false);
    expect(await reader.get('k')).toBeUndefined();
    expect(await raw.exists(`{${ns}}:t:file:a`)).toBe(0);
    expect(await reader.insertIfEpoch(entry('k', ['file:a']), after)).toBe(true);
  });

  it('invalidates by tag for every connection: evicts the tagged entries only, clears the tag sets, advances the epoch', async () => {
    const ns = uniqueNamespace('invalidate');
    const a = (await open(ns)).store;
    const b = (await open(ns)).store;
    const ep = await a.epoch();
    await a.insertIfEpoch(entry('r1', ['file:a', 'family:file']), ep);
    await a.insertIfEpoch(entry('r2', ['file:b', 'family:file']), ep);
    await a.insertIfEpoch(entry('r3', ['user:1']), ep);
    const res = await b.invalidate(['file:a', 'file:zzz']);
    expect(res.evicted).toEqual(['r1']);
    expect(await a.get('r1')).toBeUndefined();
    expect(await a.get('r2')).toBeDefined();
    expect(await raw.exists(`{${ns}}:t:file:a`)).toBe(0);
    const fam = await b.invalidate(['family:file']);
    expect(fam.evicted).toEqual(['r2']);
    expect(fam.epoch).toBe(res.epoch + 1);
    expect(await a.get('r3')).toBeDefined();
    expect(await a.epoch()).toBe(fam.epoch);
  });

  it('starts the epoch from the server clock, so an epoch from before a data loss never matches after it', async () => {
    const ns = uniqueNamespace('aba');
    const { store } = await open(ns);
    const first = await store.epoch();
    expect(first).toBeGreaterThan(1_600_000_000_000_000); // µs since 1970
    await store.invalidate(['t']);
    const old = await store.epoch();
    // What a restart without persistence does to our keys.
    await raw.del(`{${ns}}:epoch`);
    expect(await store.insertIfEpoch(entry('k'), old)).toBe(false);
    const fresh = await store.epoch();
    expect(fresh).toBeGreaterThan(old);
    expect(await store.insertIfEpoch(entry('k'), fresh)).toBe(true);
  });

  it('drops tag-set members whose entries expired natively once a set grows', async () => {
    const ns = uniqueNamespace('tagclean');
    const { store } = await open(ns);
    const ep = await store.epoch();
    const minute = { ttlMs: 60_000, expiresAtMs: Date.now() + 60_000 };
    for (let i = 0; i < 40; i += 1) await store.insertIfEpoch(entry(`old${i}`, ['hot'], minute), ep);
    expect(await raw.sCard(`{${ns}}:t:hot`)).toBe(40);
    // What native expiry does to the entries (no sleep, and the set keeps its own minute-long TTL).
    await raw.del(Array.from({ length: 40 }, (_, i) => `{${ns}}:e:old${i}`));
    expect(await raw.pTTL(`{${ns}}:t:hot`)).toBeGreaterThan(50_000);
    await store.insertIfEpoch(entry('new0', ['hot'], minute), ep);
    // 41 members, over 32: the insert samples 8 distinct members and drops the dead ones, at least 7.
    expect(await raw.sCard(`{${ns}}:t:hot`)).toBeLessThanOrEqual(34);
    for (let i = 1; i < 10; i += 1) await store.insertIfEpoch(entry(`new${i}`, ['hot'], minute), ep);
    expect(await raw.sCard(`{${ns}}:t:hot`)).toBeLessThan(40);
    // Stale members never cause an under-eviction: everything live is still found.
    const { evicted } = await store.invalidate(['hot']);
    expect([...evicted].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `new${i}`).sort());
  });

  it('deletes a value that fails to decode, answers a miss and counts it', async () => {
    const ns = uniqueNamespace('decode');
    const { store, warnings } = await open(ns);
    await raw.set(`{${ns}}:e:bad`, '{"v":1,"e":{"key":"bad", nope');
    await raw.set(`{${ns}}:e:other`, JSON.stringify({ v: 1, e: { ...entry('someone-else') } }));
    expect(await store.get('bad')).toBeUndefined();
    expect(await store.get('other')).toBeUndefined();
    expect(await raw.exists([`{${ns}}:e:bad`, `{${ns}}:e:other`])).toBe(0);
    expect(store.stats.decodeFailures).toBe(2);
    expect(warnings.map((w) => w.code)).toEqual(['decode_failed', 'decode_failed']);
  });

  it('delete removes one entry and reports whether it existed', async () => {
    const { store } = await open(uniqueNamespace('delete'));
    await store.insertIfEpoch(entry('k'), await store.epoch());
    expect(await store.delete('k')).toBe(true);
    expect(await store.delete('k')).toBe(false);
    expect(await store.get('k')).toBeUndefined();
  });

  it('rejects options it cannot honour, naming the option', async () => {
    const client = { onLinkEvent: () => () => undefined } as unknown as ConstructorParameters<typeof RedisToolCacheStore>[0]['client'];
    expect(() => new RedisToolCacheStore({ client, namespace: 'a{b}' })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: namespace: must be non-empty without "{" or "}" (it becomes a Redis hash tag), got "a{b}"]`,
    );
    expect(() => new RedisToolCacheStore({ client, frontTier: { leaseMs: 2000 }, ackTimeoutMs: 1000 })).toThrow(InvalidOptionError);
    expect(() => new RedisToolCacheStore({ client, ackTimeoutMs: -1 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: ackTimeoutMs: must be a positive finite number, got -1]`,
    );
  });
});

describe('RedisToolCacheStore.flight', () => {
  it('lets one owner acquire; only the owner token releases', async () => {
    const ns = uniqueNamespace('lock');
    const a = (await open(ns)).store;
    const b = (await open(ns)).store;
    expect(await a.flight.acquire('k', 'tok-a', 5000)).toBe(true);
    expect(await b.flight.acquire('k', 'tok-b', 5000)).toBe(false);
    await b.flight.release('k', 'tok-b');
    expect(await raw.get(`{${ns}}:l:k`)).toBe('tok-a');
    await a.flight.release('k', 'tok-a');
    expect(await b.flight.acquire('k', 'tok-b', 5000)).toBe(true);
  });

  it('refuses the claim while the entry exists, and a waiter gets that entry at once', async () => {
    const ns = uniqueNamespace('lock-stored');
    const a = (await open(ns)).store;
    await a.insertIfEpoch(entry('k'), await a.epoch());
    // A caller that missed just before another runner stored and released: no second run.
    expect(await a.flight.acquire('k', 'late', 5000)).toBe(false);
    expect((await a.flight.wait('k', 5000))?.key).toBe('k');
  });

  it('wakes a waiter with the entry as soon as the owner stores it', async () => {
    const ns = uniqueNamespace('wait-hit');
    const owner = (await open(ns)).store;
    const waiter = (await open(ns)).store;
    await owner.flight.acquire('k', 'tok', 10_000);
    const waiting = waiter.flight.wait('k', 10_000);
    await sleep(50);
    await owner.insertIfEpoch(entry('k', ['t']), await owner.epoch());
    await owner.flight.release('k', 'tok');
    expect((await waiting)?.key).toBe('k');
    expect(waiter.stats.flightWaitHits).toBe(1);
  });

  it('returns undefined to a waiter when the owner releases without an entry', async () => {
    const ns = uniqueNamespace('wait-gaveup');
    const owner = (await open(ns)).store;
    const waiter = (await open(ns)).store;
    await owner.flight.acquire('k', 'tok', 10_000);
    const waiting = waiter.flight.wait('k', 10_000);
    await sleep(50);
    await owner.flight.release('k', 'tok');
    expect(await waiting).toBeUndefined();
    expect(waiter.stats.flightWaitGaveUp).toBe(1);
  });

  it('returns undefined once a dead owner’s lock expires, never waiting forever', async () => {
    const ns = uniqueNamespace('wait-dead');
    const owner = (await open(ns)).store;
    const waiter = (await open(ns)).store;
    await owner.flight.acquire('k', 'tok', 200); // the owner "dies": never releases
    expect(await waiter.flight.wait('k', 10_000)).toBeUndefined();
    // It gave up because the lock was gone, not at its own 10-second timeout (a count, not a stopwatch: no load can fail it).
    expect(waiter.stats.flightWaitGaveUp).toBe(1);
    expect(waiter.stats.flightWaitTimeouts).toBe(0);
    // And a waiter gives up at its own timeout even while the lock is held.
    await owner.flight.acquire('k2', 'tok', 60_000);
    expect(await waiter.flight.wait('k2', 150)).toBeUndefined();
    expect(waiter.stats.flightWaitTimeouts).toBe(1);
  });
});

describe('RedisToolCacheStore: write marks (beginWrite)', () => {
  it('evicts a write’s tags before it runs and refuses their inserts, on every replica, until its invalidation lifts the mark', async () => {
    const ns = uniqueNamespace('marks');
    const a = (await open(ns, { writeMarkMs: 60_000 })).store;
    const b = (await open(ns)).store;
    const old = entry('Read|s|old', ['file:a', 'family:file']);
    expect(await b.insertIfEpoch(old, await b.epoch())).toBe(true);
    const before = await b.epoch();
    expect(await a.beginWrite(['file:a', 'file:*'], 'w1')).toEqual({ evicted: [old.key] });
    expect(await b.get(old.key)).toBeUndefined();
    // The epoch moved (a run that started before must not be joined by a call that starts after the write) ...
    const epoch = await b.epoch();
    expect(epoch).toBeGreaterThan(before);
    // ... and a read that starts during the write, at the new epoch, is kept out by the mark alone.
    expect(await b.insertIfEpoch(entry('Read|s|during', ['file:a']), epoch)).toBe(false);
    expect(await b.insertIfEpoch(entry('Read|s|glob', ['file:*']), epoch)).toBe(false);
    expect(await b.insertIfEpoch(entry('Read|s|other', ['file:b']), epoch)).toBe(true);
    // The mark lives writeMarkMs at most (for a writer that never comes back), in Redis's own clock.
    const pttl = await raw.pTTL(`{${ns}}:m:file:a`);
    expect(pttl).toBeGreaterThan(0);
    expect(pttl).toBeLessThanOrEqual(60_000);
    // Another write's invalidation of the same tag does not lift w1's mark; w1's own does.
    await b.invalidate(['file:a'], ['w2']);
    expect(await b.insertIfEpoch(entry('Read|s|later'), await b.epoch())).toBe(true);
    expect(await b.insertIfEpoch(entry('Read|s|after-w2', ['file:a']), await b.epoch())).toBe(false);
    await a.invalidate(['file:a', 'file:*'], ['w1']);
    expect(await raw.exists(`{${ns}}:m:file:a`)).toBe(0);
    expect(await b.insertIfEpoch(entry('Read|s|after', ['file:a']), await b.epoch())).toBe(true);
  });

  it('lifts a failed write’s mark without moving the epoch again (endWrite)', async () => {
    const ns = uniqueNamespace('marks-end');
    const { store } = await open(ns);
    await store.beginWrite(['file:a'], 'w1');
    const epoch = await store.epoch();
    expect(await store.insertIfEpoch(entry('Read|s|x', ['file:a']), epoch)).toBe(false);
    await store.endWrite(['file:a'], 'w1');
    expect(await store.epoch()).toBe(epoch);
    expect(await store.insertIfEpoch(entry('Read|s|x', ['file:a']), epoch)).toBe(true);
  });

  it('refuses a writeMarkMs that is not a positive finite number', async () => {
    await expect(openStore(redis.url, uniqueNamespace('marks-bad'), { writeMarkMs: 0 })).rejects.toBeInstanceOf(InvalidOptionError);
  });
});
