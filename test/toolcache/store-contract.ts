/**
 * The ToolCacheStore contract as a reusable suite: run it against every store
 * (memory here, Redis in its own test file) so the memoizer's staleness rules
 * hold whichever store is plugged in, including through a ToolCache whose
 * clock is injected (a store must never judge time by its own clock).
 *
 * Usage:
 * ```ts
 * describeToolCacheStore('memory', async () => new MemoryToolCacheStore());
 * ```
 */

import { afterEach, describe, expect, it } from 'vitest';
import { EVERYTHING_TAG, type StoredEntry, type ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';

let seq = 0;

/** A well-formed entry; `key` gets a unique suffix per test run so shared stores do not collide. */
export function makeEntry(key: string, tags: readonly string[], extra: Partial<StoredEntry> = {}): StoredEntry {
  return {
    key,
    tool: 'Read',
    scope: 'tenant-1',
    content: `content of ${key}`,
    durationMs: 12.5,
    insertedTurn: 3,
    insertedAtMs: 1_700_000_000_000,
    ttlTurns: 5,
    tags,
    ...extra,
  };
}

export function describeToolCacheStore(name: string, makeStore: () => Promise<ToolCacheStore>, cleanup?: (store: ToolCacheStore) => Promise<void>): void {
  describe(`ToolCacheStore contract: ${name}`, () => {
    const opened: ToolCacheStore[] = [];
    async function open(): Promise<ToolCacheStore> {
      const s = await makeStore();
      opened.push(s);
      return s;
    }
    // Unique keys and tags per test, so a store shared between tests (Redis db) cannot leak state into assertions.
    function k(label: string): string {
      return `Read:t%3A1:${label}-${process.pid}-${++seq}`;
    }
    function tag(label: string): string {
      return `file:${label}-${process.pid}-${seq}`;
    }

    afterEach(async () => {
      for (const s of opened.splice(0)) {
        if (cleanup !== undefined) await cleanup(s);
        await s.close?.();
      }
    });

    it('returns undefined for a key never inserted', async () => {
      const s = await open();
      expect(await s.get(k('absent'))).toBeUndefined();
    });

    it('round-trips an entry inserted at the current epoch, optional fields included or absent', async () => {
      const s = await open();
      const e = await s.epoch();
      const turnEntry = makeEntry(k('a'), [tag('a'), 'family:file'], {
        content: [
          { type: 'text', text: 'héllo ✓ "quoted"\n' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      });
      expect(await s.insertIfEpoch(turnEntry, e)).toBe(true);
      expect(await s.get(turnEntry.key)).toEqual(turnEntry);

      const { ttlTurns: _drop, ...noTurns } = makeEntry(k('b'), [], { expiresAtMs: Date.now() + 60_000 });
      expect(await s.insertIfEpoch(noTurns, e)).toBe(true);
      const back = await s.get(noTurns.key);
      expect(back).toEqual(noTurns);
      expect(back !== undefined && 'ttlTurns' in back).toBe(false);
    });

    it('refuses to insert (and stores nothing) when an invalidation happened since the epoch was read', async () => {
      const s = await open();
      const e = await s.epoch();
      await s.invalidate([tag('unrelated')]);
      const entry = makeEntry(k('late'), [tag('x')]);
      expect(await s.insertIfEpoch(entry, e)).toBe(false);
      expect(await s.get(entry.key)).toBeUndefined();
    });

    it('advances the epoch on every invalidation, even one that evicts nothing, and never moves it back', async () => {
      const s = await open();
      let prev = await s.epoch();
      expect(Number.isFinite(prev)).toBe(true);
      for (let i = 0; i < 5; i++) {
        const r = await s.invalidate(i % 2 === 0 ? [] : [tag(`none${i}`)]);
        expect(r.evicted).toEqual([]);
        expect(r.epoch).toBeGreaterThan(prev);
        expect(await s.epoch()).toBeGreaterThanOrEqual(r.epoch);
        prev = r.epoch;
      }
    });

    it('evicts exactly the entries carrying any of the tags and returns their keys', async () => {
      const s = await open();
      const e = await s.epoch();
      const [ta, tb, tc] = [tag('a'), tag('b'), tag('c')];
      const a = makeEntry(k('a'), [ta]);
      const ab = makeEntry(k('ab'), [ta, tb]);
      const b = makeEntry(k('b'), [tb]);
      const c = makeEntry(k('c'), [tc]);
      const none = makeEntry(k('none'), []);
      for (const x of [a, ab, b, c, none]) expect(await s.insertIfEpoch(x, e)).toBe(true);

      const r = await s.invalidate([ta, tag('zzz')]);
      expect([...r.evicted].sort()).toEqual([a.key, ab.key].sort());
      expect(await s.get(a.key)).toBeUndefined();
      expect(await s.get(ab.key)).toBeUndefined();
      expect(await s.get(b.key)).toEqual(b);
      expect(await s.get(c.key)).toEqual(c);
      expect(await s.get(none.key)).toEqual(none);

      const r2 = await s.invalidate([tb, tc]);
      expect([...r2.evicted].sort()).toEqual([b.key, c.key].sort());
    });

    it('makes every entry unreachable on an invalidation of EVERYTHING_TAG, listed or not; later inserts are served', async () => {
      const s = await open();
      const e = await s.epoch();
      const [ta, tb] = [tag('a'), tag('b')];
      const listed = makeEntry(k('listed'), [EVERYTHING_TAG, ta]);
      const unlisted = makeEntry(k('unlisted'), [tb]);
      const bare = makeEntry(k('bare'), []);
      for (const x of [listed, unlisted, bare]) expect(await s.insertIfEpoch(x, e)).toBe(true);
      const r = await s.invalidate([EVERYTHING_TAG]);
      expect(r.epoch).toBeGreaterThan(e);
      for (const x of [listed, unlisted, bare]) expect(await s.get(x.key)).toBeUndefined();
      expect(await s.insertIfEpoch(listed, e)).toBe(false); // guarded by the old epoch
      expect(await s.insertIfEpoch(listed, r.epoch)).toBe(true);
      expect(await s.get(listed.key)).toEqual(listed);
      // A later write to one tag evicts only its entries again.
      expect(await s.insertIfEpoch(unlisted, r.epoch)).toBe(true);
      await s.invalidate([ta]);
      expect(await s.get(listed.key)).toBeUndefined();
      expect(await s.get(unlisted.key)).toEqual(unlisted);
    });

    it('matches tags exactly (no prefix or pattern matching)', async () => {
      const s = await open();
      const e = await s.epoch();
      const t = tag('src/main.ts');
      const entry = makeEntry(k('exact'), [t]);
      await s.insertIfEpoch(entry, e);
      const r = await s.invalidate([t.slice(0, -3), `${t}x`, 'file:*', 'file:']);
      expect(r.evicted).toEqual([]);
      expect(await s.get(entry.key)).toEqual(entry);
    });

    it('replaces an entry under the same key; the new tags evict it', async () => {
      const s = await open();
      const e = await s.epoch();
      const key = k('same');
      await s.insertIfEpoch(makeEntry(key, [tag('old')], { content: 'v1' }), e);
      await s.insertIfEpoch(makeEntry(key, [tag('new')], { content: 'v2' }), e);
      expect((await s.get(key))?.content).toBe('v2');
      const r = await s.invalidate([tag('new')]);
      expect(r.evicted).toEqual([key]);
      expect(await s.get(key)).toBeUndefined();
    });

    it('deletes one entry and reports whether it existed; a deleted entry is no longer evictable', async () => {
      const s = await open();
      const e = await s.epoch();
      const entry = makeEntry(k('del'), [tag('d')]);
      await s.insertIfEpoch(entry, e);
      expect(await s.delete(entry.key)).toBe(true);
      expect(await s.delete(entry.key)).toBe(false);
      expect(await s.get(entry.key)).toBeUndefined();
      expect((await s.invalidate([tag('d')])).evicted).toEqual([]);
    });

    it('keeps keys with colons, percent signs and non-ASCII apart', async () => {
      const s = await open();
      const e = await s.epoch();
      const base = k('weird');
      const keys = [`${base}:a`, `${base}%3Aa`, `${base}:ä`, `${base}:a:`];
      for (const key of keys) await s.insertIfEpoch(makeEntry(key, [], { content: key }), e);
      for (const key of keys) expect((await s.get(key))?.content).toBe(key);
    });

    it('is atomic: after concurrent inserts and an invalidation of their tag settle, no entry with that tag survives', async () => {
      const s = await open();
      const t = tag('race');
      const e = await s.epoch();
      const entries = Array.from({ length: 20 }, (_, i) => makeEntry(k(`race${i}`), [t]));
      const inserts = entries.map((x, i) => (i % 2 === 0 ? s.insertIfEpoch(x, e) : Promise.resolve().then(() => s.insertIfEpoch(x, e))));
      const inv = s.invalidate([t]);
      const results = await Promise.all(inserts);
      const { evicted } = await inv;
      for (const x of entries) expect(await s.get(x.key)).toBeUndefined();
      // Every insert either was refused or was evicted by the invalidation.
      const accepted = entries.filter((_, i) => results[i]).map((x) => x.key);
      expect([...evicted].sort()).toEqual(accepted.sort());
    });

    describe('through a ToolCache with an injected clock (far from the real one)', () => {
      // 1970 and 2100: a store that mixes the cache's clock with its own expires entries at once, or never.
      for (const start of [1_000, 4_102_444_800_000]) {
        it(`second TTLs count on the cache's clock (starting at ${new Date(start).getUTCFullYear()}): miss, hit, then miss once 60 s passed on that clock`, async () => {
          const s = await open();
          let t = start;
          const cache = new ToolCache({ store: s, now: () => t, session: `clock-${process.pid}-${++seq}` });
          cache.register('Weather', { cacheable: true, ttl: { seconds: 60 } });
          const city = k('city');
          let runs = 0;
          const weather = async () => `sunny #${++runs}`;
          expect((await cache.call('Weather', { city }, weather, { scope: 's', callId: '1' })).cache.type).toBe('miss');
          t += 59_999;
          expect(await cache.call('Weather', { city }, weather, { scope: 's', callId: '2' })).toMatchObject({
            content: 'sunny #1\n[cached]',
            cache: { type: 'hit' },
          });
          t += 1;
          expect(await cache.call('Weather', { city }, weather, { scope: 's', callId: '3' })).toMatchObject({
            content: 'sunny #2',
            cache: { type: 'miss', expired: true },
          });
        });
      }

      it('turn TTLs count on the session’s turn clock: hit for 4 turns, miss on the 5th', async () => {
        const s = await open();
        const cache = new ToolCache({ store: s, now: () => 1_000, turn: 7, session: `turns-${process.pid}-${++seq}` });
        cache.register('Read', { cacheable: true, ttl: { turns: 5 } });
        const path = k('path');
        let runs = 0;
        const read = async () => `v${++runs}`;
        const types: string[] = [];
        for (let i = 0; i < 6; i++) {
          types.push((await cache.call('Read', { path }, read, { scope: 's', callId: `c${i}` })).cache.type);
          cache.advanceTurn();
        }
        expect(types).toEqual(['miss', 'hit', 'hit', 'hit', 'hit', 'miss']);
      });
    });
  });
}
