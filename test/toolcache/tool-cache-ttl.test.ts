/** ToolCache, TTL and size: turn and second clocks, sessions, the bound of the default store. */
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { DEFAULT_MAX_ENTRIES, MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { StoredEntry } from '../../src/toolcache/store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { counting, fakeClock, opts, registerCodingTools } from './helpers.js';

describe('ToolCache.call: TTL and size', () => {
  it('treats an entry of its own session stamped at a later turn (a replica whose clock runs behind) as expired, never as fresh', async () => {
    const store = new MemoryToolCacheStore();
    const ahead = new ToolCache({ store, turn: 40, session: 'conv-1' });
    const behind = new ToolCache({ store, turn: 3, session: 'conv-1' });
    for (const c of [ahead, behind]) registerCodingTools(c, 5);
    await ahead.call('Read', { path: 'a' }, async () => 'old content', opts('1'));
    // Turn 3 − 40 is negative: without the guard the entry would look 37 turns younger than new.
    const r = await behind.call('Read', { path: 'a' }, async () => 'fresh content', opts('2'));
    expect(r).toMatchObject({ content: 'fresh content', cache: { type: 'miss', expired: true } });
  });

  it('keeps turn clocks apart: two sessions sharing a store each hit their own turn-TTL entries and never delete the other’s', async () => {
    const store = new MemoryToolCacheStore();
    // Turn 40 and turn 3: before, each saw the other's entry as "from the future", deleted it, and neither ever hit.
    const one = new ToolCache({ store, turn: 40 });
    const two = new ToolCache({ store, turn: 3 });
    for (const c of [one, two]) registerCodingTools(c, 5);
    const read = counting((n: number) => `a.ts, run ${n}`);
    const seen: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (const [name, c] of [
        ['one', one],
        ['two', two],
      ] as const) {
        const r = await c.call('Read', { path: 'a.ts' }, read, opts(`${name}-${round}`));
        seen.push(`${name}:${r.cache.type}`);
      }
    }
    expect(seen).toEqual(['one:miss', 'two:miss', 'one:hit', 'two:hit', 'one:hit', 'two:hit']);
    expect(read.runs).toBe(2);
    expect(one.stats().evictions.expired + two.stats().evictions.expired).toBe(0);
    expect(one.keyOf('Read', { path: 'a.ts' }, 's')).not.toBe(two.keyOf('Read', { path: 'a.ts' }, 's'));
  });

  it('shares second-TTL entries across sessions, and a write from any session evicts every session’s entries', async () => {
    const store = new MemoryToolCacheStore();
    const clock = fakeClock();
    const [one, two] = [new ToolCache({ store, now: clock.now }), new ToolCache({ store, now: clock.now })];
    for (const c of [one, two]) {
      registerCodingTools(c, 5);
      c.register('Weather', { cacheable: true, ttl: { seconds: 60 } });
    }
    const weather = counting('sunny');
    await one.call('Weather', { city: 'Oslo' }, weather, opts('w1'));
    expect((await two.call('Weather', { city: 'Oslo' }, weather, opts('w2'))).cache.type).toBe('hit');
    expect(weather.runs).toBe(1);

    await one.call('Read', { path: 'a.ts' }, async () => 'v1 (one)', opts('r1'));
    await two.call('Read', { path: 'a.ts' }, async () => 'v1 (two)', opts('r2'));
    await two.call('Edit', { path: 'a.ts' }, async () => 'ok', opts('e'));
    // Never stale: the edit from session two reaches session one's entry too.
    expect(await one.call('Read', { path: 'a.ts' }, async () => 'v2', opts('r3'))).toMatchObject({ content: 'v2', cache: { type: 'miss' } });
    expect(await two.call('Read', { path: 'a.ts' }, async () => 'v2', opts('r4'))).toMatchObject({ content: 'v2', cache: { type: 'miss' } });
  });

  it('sweeps expired entries out of the default store as new ones arrive (seconds and its own turns), so it never fills with dead ones', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now });
    cache.register('Quote', { cacheable: true, ttl: { seconds: 1 } });
    registerCodingTools(cache, 1);
    const store = cache.store as MemoryToolCacheStore;
    for (let i = 0; i < 500; i++) {
      await cache.call('Quote', { sym: `S${i}` }, async () => '1', opts(`q${i}`));
      clock.advance(2000); // every earlier quote has expired
    }
    // Without the sweep: 500 entries, each expired but kept until looked up again.
    expect(store.size).toBeLessThanOrEqual(2);
    for (let i = 0; i < 500; i++) {
      await cache.call('Read', { path: `f${i}` }, async () => 'x', opts(`r${i}`));
      cache.advanceTurn(); // TTL 1 turn
    }
    expect(store.size).toBeLessThanOrEqual(2);
    expect(cache.stats().evictions.expired).toBeGreaterThanOrEqual(996);
  });

  it('bounds a memory store by default (DEFAULT_MAX_ENTRIES), LRU; Infinity opts out', async () => {
    const store = new MemoryToolCacheStore();
    const epoch = await store.epoch();
    const entry = (i: number): StoredEntry => ({
      key: `k${i}`,
      tool: 'T',
      scope: '',
      content: '',
      durationMs: 0,
      insertedTurn: 0,
      insertedAtMs: 0,
      ttlTurns: 5,
      tags: [],
    });
    for (let i = 0; i < DEFAULT_MAX_ENTRIES + 5; i++) await store.insertIfEpoch(entry(i), epoch);
    expect(store.size).toBe(DEFAULT_MAX_ENTRIES);
    expect(await store.get('k4')).toBeUndefined();
    expect(await store.get('k5')).toBeDefined();
    const unbounded = new MemoryToolCacheStore({ maxEntries: Number.POSITIVE_INFINITY });
    for (let i = 0; i < DEFAULT_MAX_ENTRIES + 5; i++) await unbounded.insertIfEpoch(entry(i), epoch);
    expect(unbounded.size).toBe(DEFAULT_MAX_ENTRIES + 5);
  });

  it('expires second-based TTLs with the injected clock (now − inserted ≥ ttl)', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now });
    cache.register('Weather', { cacheable: true, ttl: { seconds: 60 } });
    const run = counting((n: number) => `sunny #${n}`);
    await cache.call('Weather', { city: 'Oslo' }, run, opts('1'));
    clock.advance(59_999);
    expect((await cache.call('Weather', { city: 'Oslo' }, run, opts('2'))).cache.type).toBe('hit');
    clock.advance(1);
    const r = await cache.call('Weather', { city: 'Oslo' }, run, opts('3'));
    expect(r).toMatchObject({ content: 'sunny #2', cache: { type: 'miss', expired: true } });
    expect(cache.stats().evictions.expired).toBe(1);
  });

  it('counts an entry’s age from the start of its miss, and stores an absolute expiry for second TTLs', async () => {
    const clock = fakeClock();
    const cache = new ToolCache({ now: clock.now, turn: 1 });
    registerCodingTools(cache, 2);
    cache.register('Quote', { cacheable: true, ttl: { seconds: 10 } });
    // The turn advances while the read runs (a long tool in a parallel wave): the entry is as old as the turn it started in.
    await cache.call(
      'Read',
      { path: 'a' },
      async () => {
        cache.advanceTurn();
        return 'A';
      },
      opts('1'),
    );
    expect(await cache.store.get(cache.keyOf('Read', { path: 'a' }, 's'))).toMatchObject({ insertedTurn: 1, ttlTurns: 2, session: cache.session });
    expect((await cache.call('Read', { path: 'a' }, async () => 'A2', opts('2'))).cache.type).toBe('hit'); // turn 2: 2 − 1 < 2
    cache.advanceTurn();
    expect((await cache.call('Read', { path: 'a' }, async () => 'A3', opts('3'))).cache).toMatchObject({ type: 'miss', expired: true }); // 3 − 1 ≥ 2

    const start = clock.now();
    await cache.call(
      'Quote',
      { sym: 'X' },
      async () => {
        clock.advance(4000);
        return '42';
      },
      opts('q'),
    );
    // Second TTLs are shared by every session: the key is the plain call key, no session suffix
    // (with the memory store, short arguments are held raw; other stores get toolCacheKey's hash).
    expect(cache.keyOf('Quote', { sym: 'X' }, 's')).toBe('Quote:s:={"sym":"X"}');
    const e = await cache.store.get('Quote:s:={"sym":"X"}');
    // ttlMs, what a store expires it by natively, is the lifetime left at the insert: 10 s from the miss start, 4 s gone.
    expect(e).toMatchObject({ insertedAtMs: start, expiresAtMs: start + 10_000, ttlMs: 6_000, durationMs: 4000 });
    expect(e && 'ttlTurns' in e).toBe(false);
  });

  it('caches nothing with a TTL of 0', async () => {
    const cache = new ToolCache();
    cache.register('Now', { cacheable: true, ttl: { turns: 0 } });
    const run = counting('t');
    await cache.call('Now', {}, run, opts('1'));
    const r = await cache.call('Now', {}, run, opts('2'));
    expect(r.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'ttl_zero' });
    expect(run.runs).toBe(2);
  });

  it('bounds the default store with LRU and counts capacity evictions per tool', async () => {
    const cache = new ToolCache({ maxEntries: 2 });
    registerCodingTools(cache);
    for (const path of ['a', 'b', 'a', 'c']) await cache.call('Read', { path }, async () => path, opts(path));
    // a was used again after b, so b is the least recently used when c arrives.
    expect(cache.stats().perTool.Read?.evictions.capacity).toBe(1);
    expect((await cache.call('Read', { path: 'a' }, async () => '', opts('x'))).cache.type).toBe('hit');
    expect((await cache.call('Read', { path: 'b' }, async () => 'b', opts('y'))).cache.type).toBe('miss');
    expect(() => new ToolCache({ maxEntries: 2, store: new MemoryToolCacheStore() })).toThrow(/maxEntries/);
  });

  it('keeps the turn clock monotonic', () => {
    const cache = new ToolCache({ turn: 3 });
    expect(cache.advanceTurn()).toBe(4);
    expect(() => cache.setTurn(2)).toThrowErrorMatchingInlineSnapshot(`[InvalidOptionError: turn: cannot go backwards (from 4 to 2)]`);
    expect(() => cache.advanceTurn(-1)).toThrow(InvalidOptionError);
  });

  it('drops an entry that does not belong to its key (e.g. a corrupt shared store) instead of serving it', async () => {
    const store = new MemoryToolCacheStore();
    const cache = new ToolCache({ store });
    registerCodingTools(cache);
    const key = cache.keyOf('Read', { path: 'a' }, 'tenant-a');
    const foreign: StoredEntry = {
      key,
      tool: 'Read',
      scope: 'tenant-b',
      content: 'secret',
      durationMs: 1,
      insertedTurn: 0,
      insertedAtMs: 0,
      ttlTurns: 5,
      tags: [],
    };
    await store.insertIfEpoch(foreign, await store.epoch());
    const r = await cache.call('Read', { path: 'a' }, async () => 'mine', opts('1', 'tenant-a'));
    expect(r).toMatchObject({ content: 'mine', cache: { type: 'miss', inserted: true } });
    expect(cache.stats().evictions.corrupt).toBe(1);
  });
});

describe('ToolCache: a call does not join a run older than its TTL', () => {
  for (const ttl of ['turns', 'seconds'] as const) {
    it(`runs afresh instead of joining an identical run that read its content a TTL ago (${ttl})`, async () => {
      let t = 1_700_000_000_000;
      const cache = new ToolCache({ now: () => t });
      cache.register('Read', { cacheable: true, ttl: ttl === 'turns' ? { turns: 2 } : { seconds: 10 }, reads: ['file'] });
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let runs = 0;
      const read = async () => {
        const n = ++runs;
        const content = `read by run ${n} at turn ${cache.turn}, ${t} ms`; // read at once...
        if (n === 1) await gate; // ...and slow to return
        return content;
      };
      const first = cache.call('Read', { path: 'a' }, read, { scope: 's', callId: 'r1' });
      await new Promise((r) => setTimeout(r, 0));
      if (ttl === 'turns') cache.advanceTurn(2);
      else t += 10_000;
      // Starts when the first run's content is a full TTL old: a hit would not be served, so neither is a join.
      const second = cache.call('Read', { path: 'a' }, read, { scope: 's', callId: 'r2' });
      release();
      await first;
      const r = await second;
      expect(r.cache.type).toBe('miss');
      expect(r.content).toMatch(/^read by run 2/);
      expect(runs).toBe(2);
    });
  }
});
