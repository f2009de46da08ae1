import { afterEach, describe, expect, it, vi } from 'vitest';
import { SingleFlight, TIMED_OUT } from '../../src/toolcache/singleflight.js';
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
    // The runner gets the content; each joiner is told, as a hit is, that it did not run the tool.
    expect(results.filter((r) => r.cache.type === 'miss').map((r) => r.content)).toEqual(['content of a.ts']);
    expect(new Set(results.filter((r) => r.cache.type === 'shared').map((r) => r.content))).toEqual(new Set(['content of a.ts\n[cached]']));
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

describe('ToolCache singleflight: a run that never settles', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not block identical callers forever: after flightTimeoutMs each runs the tool itself, and later calls do not join the hung run', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const cache = new ToolCache({ flightTimeoutMs: 5000 });
    registerCodingTools(cache);
    let runs = 0;
    const read = async ({ path }: { path: string }) => {
      runs++;
      if (runs === 1) return new Promise<string>(() => undefined); // the first run hangs forever
      return `content of ${path}`;
    };
    const hung = cache.call('Read', { path: 'a.ts' }, read, { scope: 's', callId: 'first' });
    const joiners = [1, 2].map((i) => cache.call('Read', { path: 'a.ts' }, read, { scope: 's', callId: `joiner${i}` }));
    let settled = 0;
    for (const j of joiners) void j.then(() => settled++);
    await vi.advanceTimersByTimeAsync(4999);
    expect(settled).toBe(0); // still waiting for the run they joined
    await vi.advanceTimersByTimeAsync(1);
    const [j1, j2] = await Promise.all(joiners);
    // The first to give up ran the tool again (and cached it); the other then found it cached.
    expect(runs).toBe(2);
    expect(j1!.cache).toEqual({ type: 'miss', expired: false, inserted: true, flightTimedOut: true });
    expect(j1!.content).toBe('content of a.ts');
    expect(j2!.cache.type).toBe('hit');
    expect(j2!.content).toBe('content of a.ts\n[cached]');
    // A later caller is served from the cache, not sent to the hung run.
    expect((await cache.call('Read', { path: 'a.ts' }, read, { scope: 's', callId: 'later' })).cache.type).toBe('hit');
    void hung;
  });
});

describe('SingleFlight', () => {
  it('a joiner with a timeout gets TIMED_OUT when the run has not settled, and the hung flight is forgotten', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const sf = new SingleFlight<number>();
      const never = () => new Promise<number>(() => undefined);
      const leader = sf.run('k', 0, never);
      const joiner = sf.run('k', 0, never, 100);
      expect(joiner.shared).toBe(true);
      await vi.advanceTimersByTimeAsync(100);
      expect(await joiner.promise).toBe(TIMED_OUT);
      expect(sf.size).toBe(0);
      expect(sf.run('k', 0, async () => 7).shared).toBe(false);
      void leader;
      // A run that settles in time clears its timer and hands over its value.
      const g = gate();
      const quick = sf.run('q', 0, async () => {
        await g.wait;
        return 1;
      });
      const waiting = sf.run('q', 0, async () => 2, 100);
      g.open();
      expect(await waiting.promise).toBe(1);
      expect(vi.getTimerCount()).toBe(0);
      void quick;
    } finally {
      vi.useRealTimers();
    }
  });

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
