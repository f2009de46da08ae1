import { describe, expect, it } from 'vitest';
import { SingleFlight } from '../../src/toolcache/singleflight.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { registerCodingTools } from './helpers.js';

function gate(): { open: () => void; wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { open, wait };
}

describe('ToolCache singleflight', () => {
  it('runs 50 concurrent identical misses once; every caller gets the result under its own id', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    const g = gate();
    let runs = 0;
    const read = async ({ path }: { path: string }) => {
      runs++;
      await g.wait;
      return `content of ${path}`;
    };
    const calls = Array.from({ length: 50 }, (_, i) => cache.call('Read', { path: 'a.ts' }, read, { scope: 's', callId: `toolu_${i}` }));
    g.open();
    const results = await Promise.all(calls);
    expect(runs).toBe(1);
    expect(results.map((r) => r.callId)).toEqual(Array.from({ length: 50 }, (_, i) => `toolu_${i}`));
    expect(new Set(results.map((r) => r.content))).toEqual(new Set(['content of a.ts']));
    expect(results.filter((r) => r.cache.type === 'miss')).toHaveLength(1);
    expect(results.filter((r) => r.cache.type === 'shared')).toHaveLength(49);
    expect(cache.stats()).toMatchObject({ misses: 1, shared: 49, hits: 0 });
    // After completion the entry is cached: the next call is a hit, not a run.
    expect((await cache.call('Read', { path: 'a.ts' }, read, { scope: 's', callId: 'later' })).cache.type).toBe('hit');
    expect(runs).toBe(1);
  });

  it('shares the error with every caller, caches nothing, and the next call after completion runs fresh', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    const g = gate();
    let runs = 0;
    const failing = async () => {
      runs++;
      await g.wait;
      throw new Error(`EIO on run ${runs}`);
    };
    const calls = Array.from({ length: 50 }, (_, i) => cache.call('Read', { path: 'a.ts' }, failing, { scope: 's', callId: `t${i}` }));
    g.open();
    const settled = await Promise.allSettled(calls);
    expect(runs).toBe(1);
    const reasons = settled.map((s) => (s.status === 'rejected' ? (s.reason as Error) : undefined));
    expect(reasons.every((e) => e?.message === 'EIO on run 1')).toBe(true);
    expect(new Set(reasons).size).toBe(1); // the very same error object

    const ok = await cache.call('Read', { path: 'a.ts' }, async () => 'fine now', { scope: 's', callId: 'next' });
    expect(ok).toMatchObject({ content: 'fine now', cache: { type: 'miss', inserted: true } });
  });

  it('shares an is_error result without caching it', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    let runs = 0;
    const notFound = async () => {
      runs++;
      await Promise.resolve();
      return { content: 'ENOENT', isError: true };
    };
    const rs = await Promise.all([1, 2, 3].map((i) => cache.call('Read', { path: 'x' }, notFound, { scope: 's', callId: `c${i}` })));
    expect(runs).toBe(1);
    expect(rs.every((r) => r.isError && r.content === 'ENOENT')).toBe(true);
    expect(rs[0]!.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'error' });
    await cache.call('Read', { path: 'x' }, notFound, { scope: 's', callId: 'c4' });
    expect(runs).toBe(2);
  });

  it('never collapses calls of different scopes or arguments', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    let runs = 0;
    const read = async ({ path }: { path: string }, { callId }: { callId: string }) => {
      runs++;
      await Promise.resolve();
      return `${path} for ${callId}`;
    };
    const rs = await Promise.all([
      cache.call('Read', { path: 'a' }, read, { scope: 'tenant-1', callId: '1' }),
      cache.call('Read', { path: 'a' }, read, { scope: 'tenant-2', callId: '2' }),
      cache.call('Read', { path: 'b' }, read, { scope: 'tenant-1', callId: '3' }),
    ]);
    expect(runs).toBe(3);
    expect(rs.map((r) => r.cache.type)).toEqual(['miss', 'miss', 'miss']);
  });
});

describe('SingleFlight', () => {
  it('joins only a flight started at the same epoch, and forgets a flight when it settles', async () => {
    const sf = new SingleFlight<number>();
    const g = gate();
    let runs = 0;
    const fn = async () => {
      await g.wait;
      return ++runs;
    };
    const a = sf.run('k', 1, fn);
    const b = sf.run('k', 1, fn);
    const c = sf.run('k', 2, fn); // an invalidation happened in between: fresh flight
    const d = sf.run('k', 2, fn);
    expect([a.shared, b.shared, c.shared, d.shared]).toEqual([false, true, false, true]);
    g.open();
    expect(await Promise.all([a.promise, b.promise, c.promise, d.promise])).toEqual([1, 1, 2, 2]);
    expect(sf.size).toBe(0);
    expect(sf.run('k', 2, fn).shared).toBe(false);
  });

  it('cleans up when the function throws synchronously', async () => {
    const sf = new SingleFlight<number>();
    const t = sf.run('k', 0, () => {
      throw new Error('sync');
    });
    await expect(t.promise).rejects.toThrow('sync');
    expect(sf.size).toBe(0);
  });
});
