/**
 * Staleness against clocks that jump and workers whose clocks disagree (injected clocks, no sleeps), and argument
 * spellings that make one key (a write must evict the one entry they share).
 */

import { describe, expect, it } from 'vitest';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { fakeClock, opts, wrapped } from './helpers.js';

function withTools(cache: ToolCache): ToolCache {
  cache.register('Stat', { cacheable: true, ttl: { seconds: 60 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Read', { cacheable: true, ttl: { turns: 3 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  return cache;
}

describe('ToolCache: second TTLs under clocks that jump or disagree', () => {
  it('serves nothing after the clock jumps back (an entry from the future has no known age) or forward past the TTL', async () => {
    const clock = fakeClock();
    const cache = withTools(new ToolCache({ now: clock.now }));
    await cache.call('Stat', { path: 'a' }, async () => 'v1', opts('1'));
    expect((await cache.call('Stat', { path: 'a' }, async () => 'v1', opts('2'))).cache.type).toBe('hit');
    clock.advance(-3_600_000); // NTP steps the wall clock back an hour
    expect((await cache.call('Stat', { path: 'a' }, async () => 'v2', opts('3'))).content).toBe('v2');
    clock.advance(3_600_000 + 59_999); // and forward again: the v2 entry was stamped an hour ago on this clock
    expect((await cache.call('Stat', { path: 'a' }, async () => 'v3', opts('4'))).content).toBe('v3');
    clock.advance(59_999);
    expect((await cache.call('Stat', { path: 'a' }, async () => 'v4', opts('5'))).cache.type).toBe('hit');
    clock.advance(1);
    expect((await cache.call('Stat', { path: 'a' }, async () => 'v5', opts('6'))).content).toBe('v5');
  });

  for (const skewMs of [-600_000, -59_000, 59_000, 600_000]) {
    it(`never serves a worker's entry past its TTL on another worker whose clock is ${skewMs > 0 ? 'behind' : 'ahead'} by ${Math.abs(skewMs) / 1000} s`, async () => {
      const store = wrapped(new MemoryToolCacheStore());
      const truth = fakeClock();
      // The writer's clock runs `skewMs` ahead of the truth; the reader's is the truth.
      const writer = withTools(new ToolCache({ store, now: () => truth.now() + skewMs }));
      const reader = withTools(new ToolCache({ store, now: truth.now }));
      await writer.call('Stat', { path: 'a' }, async () => 'v1', opts('w1'));
      const served: number[] = [];
      for (let t = 0; t <= 120_000; t += 1000) {
        const r = await reader.call('Stat', { path: 'a' }, async () => `fresh@${t}`, opts(`r${t}`));
        if (r.cache.type === 'hit' && String(r.content).startsWith('v1')) served.push(t);
        truth.advance(1000);
      }
      // Real age of v1 at each hit below 60 s: a clock that disagrees may shorten its life, never lengthen it.
      expect(served.every((t) => t < 60_000)).toBe(true);
    });
  }

  it('a write evicts a second-TTL entry whatever clock either worker keeps', async () => {
    const store = wrapped(new MemoryToolCacheStore());
    const a = withTools(new ToolCache({ store, now: () => 1_700_000_000_000 }));
    const b = withTools(new ToolCache({ store, now: () => 1_700_000_000_000 - 30_000 }));
    await a.call('Stat', { path: 'a' }, async () => 'v1', opts('1'));
    await b.call('Edit', { path: './a' }, async () => 'ok', opts('w'));
    expect((await a.call('Stat', { path: 'a' }, async () => 'v2', opts('2'))).content).toBe('v2');
  });
});

describe('ToolCache: spellings of one call share one entry, and a write evicts it', () => {
  const spellings: Array<[string, unknown, unknown]> = [
    ['key order', { path: 'a', opts: { x: 1, y: [1, { b: 2, a: 1 }] } }, { opts: { y: [1, { a: 1, b: 2 }], x: 1 }, path: 'a' }],
    ['an undefined property', { path: 'a', limit: undefined }, { path: 'a' }],
    ['-0 and 0', { path: 'a', offset: -0 }, { path: 'a', offset: 0 }],
    ['a bigint and its number', { path: 'a', n: 42n }, { path: 'a', n: 42 }],
  ];
  for (const [what, first, second] of spellings) {
    for (const store of ['memory', 'wrapped'] as const) {
      it(`${what} (${store} store): the second spelling hits the first's entry, and after a write neither hits`, async () => {
        const cache = withTools(new ToolCache(store === 'memory' ? {} : { store: wrapped() }));
        await cache.call('Read', first, async () => 'v1', opts('1'));
        expect((await cache.call('Read', second, async () => 'v1', opts('2'))).cache.type).toBe('hit');
        await cache.call('Edit', { path: 'a' }, async () => 'ok', opts('w'));
        expect((await cache.call('Read', first, async () => 'v2', opts('3'))).content).toBe('v2');
        expect((await cache.call('Read', second, async () => 'v2', opts('4'))).cache.type).toBe('hit');
      });
    }
  }

  it('Unicode spellings are different arguments (no normalization of keys) but one file: a write evicts both', async () => {
    const cache = withTools(new ToolCache());
    const nfc = 'caf\u00e9.ts';
    const nfd = 'cafe\u0301.ts';
    await cache.call('Read', { path: nfc }, async () => 'v1', opts('1'));
    expect((await cache.call('Read', { path: nfd }, async () => 'v1', opts('2'))).cache).toMatchObject({ type: 'miss', inserted: true });
    await cache.call('Edit', { path: nfd }, async () => 'ok', opts('w'));
    expect((await cache.call('Read', { path: nfc }, async () => 'v2', opts('3'))).content).toBe('v2');
    expect((await cache.call('Read', { path: nfd }, async () => 'v2', opts('4'))).content).toBe('v2');
  });
});
