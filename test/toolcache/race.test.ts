/**
 * Races between reads and writes. The deterministic test replays the race of
 * the design; the property test lets fast-check's scheduler pick random
 * interleavings of tool steps and store operations, and checks that no read
 * ever returns content older than the last write to its path that completed
 * before the read started.
 */

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { StoredEntry, ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache, type ToolCallResult } from '../../src/toolcache/tool-cache.js';
import { registerCodingTools, unmark } from './helpers.js';

function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ToolCache: read/write races', () => {
  it('returns but never inserts a read that raced an invalidation (read starts, write invalidates, read finishes)', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    const files = new Map([['a', 'old']]);
    // Move the epoch to 7, as in the design text.
    for (let i = 0; i < 7; i++) await cache.store.invalidate([]);
    expect(await cache.store.epoch()).toBe(7);

    const readStarted = deferred();
    const releaseRead = deferred();
    const slowRead = async ({ path }: { path: string }) => {
      const content = files.get(path)!; // reads the old content...
      readStarted.resolve();
      await releaseRead.promise; // ...and is slow to return it
      return content;
    };
    const edit = async ({ path, text }: { path: string; text: string }) => {
      files.set(path, text);
      return 'ok';
    };

    const read = cache.call('Read', { path: 'a' }, slowRead, { scope: 's', callId: 'toolu_r' });
    await readStarted.promise;
    const write = await cache.call('Edit', { path: 'a', text: 'new' }, edit, { scope: 's', callId: 'toolu_w' });
    expect(write.cache).toEqual({ type: 'write', ok: true, evicted: [] }); // nothing to evict yet
    expect(await cache.store.epoch()).toBe(8);
    releaseRead.resolve();
    const r = await read;
    expect(r.content).toBe('old'); // its caller gets what it read...
    expect(r.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'stale_epoch' }); // ...but it is not cached
    expect(cache.stats().staleDrops).toBe(1);

    const again = await cache.call('Read', { path: 'a' }, async ({ path }: { path: string }) => files.get(path)!, { scope: 's', callId: 'toolu_r2' });
    expect(again).toMatchObject({ content: 'new', cache: { type: 'miss', inserted: true } });
  });

  it('handles the race inside one parallel wave of tool_use blocks (runToolUses)', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    const files = new Map([['a', 'old']]);
    const handlers = {
      Read: async ({ path }: { path: string }) => {
        const content = files.get(path)!;
        await new Promise((r) => setTimeout(r, 5)); // slower than the edit
        return content;
      },
      Edit: async ({ path, text }: { path: string; text: string }) => {
        await new Promise((r) => setTimeout(r, 1)); // lands while the read is running
        files.set(path, text);
        return 'ok';
      },
    };
    const statuses: string[] = [];
    const onResult = (r: ToolCallResult) => statuses.push(`${r.tool}:${r.cache.type}${r.cache.type === 'miss' ? `:${r.cache.notInserted ?? 'inserted'}` : ''}`);
    const wave = await cache.runToolUses(
      [
        { type: 'tool_use', id: 'toolu_r', name: 'Read', input: { path: 'a' } },
        { type: 'tool_use', id: 'toolu_e', name: 'Edit', input: { path: 'a', text: 'new' } },
      ],
      handlers,
      { scope: 's', onResult },
    );
    expect(wave.map((b) => b.content)).toEqual(['old', 'ok']);
    expect(statuses.sort()).toEqual(['Edit:write', 'Read:miss:stale_epoch']);
    cache.advanceTurn();
    const next = await cache.runToolUses([{ type: 'tool_use', id: 'toolu_r2', name: 'Read', input: { path: 'a' } }], handlers, { scope: 's' });
    expect(next[0]?.content).toBe('new');
  });

  it('does not hand an in-flight read to an identical read that starts after a write completed', async () => {
    const cache = new ToolCache();
    registerCodingTools(cache);
    const files = new Map([['a', 'old']]);
    const release = deferred();
    let runs = 0;
    const read = async ({ path }: { path: string }) => {
      runs++;
      const content = files.get(path)!;
      if (runs === 1) await release.promise;
      return content;
    };
    const first = cache.call('Read', { path: 'a' }, read, { scope: 's', callId: 'r1' });
    await new Promise((r) => setTimeout(r, 0));
    const edit = async ({ path, text }: { path: string; text: string }) => {
      files.set(path, text);
      return 'ok';
    };
    await cache.call('Edit', { path: 'a', text: 'new' }, edit, { scope: 's', callId: 'w1' });
    // Started after the edit completed: must not join the first (pre-edit) run.
    const second = cache.call('Read', { path: 'a' }, read, { scope: 's', callId: 'r2' });
    release.resolve();
    expect((await first).content).toBe('old');
    const s = await second;
    expect(s.content).toBe('new');
    expect(s.cache.type).toBe('miss');
    expect(runs).toBe(2);
  });
});

// PROPERTY: random interleavings

type Op = { readonly kind: 'read' | 'glob' | 'write' | 'failwrite'; readonly path: string };

const PATHS = ['a', 'b', 'c'] as const;
const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom<Op['kind']>('read', 'read', 'read', 'glob', 'write', 'write', 'failwrite'),
  path: fc.constantFrom(...PATHS),
});

/** A store whose every operation happens at a point the scheduler chooses. */
function scheduledStore(s: fc.Scheduler, inner: ToolCacheStore): ToolCacheStore {
  const step = <T>(label: string, f: () => Promise<T>): Promise<T> => s.schedule(Promise.resolve(label), label).then(f);
  return {
    epoch: () => step('store.epoch', () => inner.epoch()),
    get: (k) => step('store.get', () => inner.get(k)),
    insertIfEpoch: (e: StoredEntry, ep) => step('store.insert', () => inner.insertIfEpoch(e, ep)),
    invalidate: (t) => step('store.invalidate', () => inner.invalidate(t)),
    delete: (k) => step('store.delete', () => inner.delete(k)),
  };
}

/** Runs `ops` concurrently under scheduler `s`; returns the violations found (empty = fresh). */
async function runScenario(s: fc.Scheduler, ops: readonly Op[], store: ToolCacheStore, direct = false): Promise<{ violations: string[]; hits: number }> {
  // direct: the memory store itself (its raw keys and synchronous hit path); only the tools' steps are scheduled.
  const cache = new ToolCache({ store: direct ? store : scheduledStore(s, store) });
  registerCodingTools(cache, 1000);
  const fs = new Map<string, number>(PATHS.map((p) => [p, 0]));
  let version = 0;
  let tick = 0;
  const completedWrites: Array<{ path: string; version: number; end: number }> = [];
  const violations: string[] = [];
  let hits = 0;
  const pause = (label: string) => s.schedule(Promise.resolve(label), label);

  const tools = {
    Read: async ({ path }: { path: string }) => {
      await pause(`Read ${path}: before reading`);
      const v = fs.get(path)!;
      await pause(`Read ${path}: after reading v${v}`);
      return `${path}@${v}`;
    },
    Glob: async () => {
      await pause('Glob: before reading');
      const snapshot = PATHS.map((p) => `${p}@${fs.get(p)}`).join(',');
      await pause('Glob: after reading');
      return snapshot;
    },
    Write: async ({ path }: { path: string }) => {
      await pause(`Write ${path}: before`);
      const v = ++version;
      fs.set(path, v);
      await pause(`Write ${path}: after writing v${v}`);
      return `wrote ${path}@${v}`;
    },
    Fail: async ({ path }: { path: string }) => {
      await pause(`failing Write ${path}`);
      throw new Error('disk full');
    },
  };

  const running = ops.map(async (op, i) => {
    await pause(`start #${i} ${op.kind} ${op.path}`);
    const start = ++tick;
    const callId = `toolu_${i}`;
    if (op.kind === 'write' || op.kind === 'failwrite') {
      const run = op.kind === 'write' ? tools.Write : tools.Fail;
      try {
        const r = await cache.call('Write', { path: op.path }, run, { scope: 's', callId });
        const v = Number(String(r.content).split('@')[1]);
        completedWrites.push({ path: op.path, version: v, end: ++tick });
      } catch {
        // This failed write changed nothing (it still invalidates, as a failure may have written half-way).
      }
      return;
    }
    const r =
      op.kind === 'read'
        ? await cache.call('Read', { path: op.path }, tools.Read, { scope: 's', callId })
        : await cache.call('Glob', { pattern: '**' }, tools.Glob, { scope: 's', callId });
    if (r.cache.type === 'hit') hits++;
    for (const part of String(unmark(r.content)).split(',')) {
      const [p, v] = part.split('@') as [string, string];
      const mustSee = Math.max(0, ...completedWrites.filter((w) => w.path === p && w.end < start).map((w) => w.version));
      if (Number(v) < mustSee)
        violations.push(`#${i} ${op.kind}(${op.path}) [${r.cache.type}] returned ${p}@${v}, but v${mustSee} was written before it started`);
    }
  });
  await s.waitIdle();
  await Promise.all(running);
  return { violations, hits };
}

/** A store that forgets the epoch guard: the property must catch it (so the property is not vacuous). */
class NoEpochGuardStore extends MemoryToolCacheStore {
  override async insertIfEpoch(entry: StoredEntry): Promise<boolean> {
    return super.insertIfEpoch(entry, await this.epoch());
  }
}

describe('ToolCache: freshness under random interleavings (fc.scheduler)', () => {
  const scenarios = fc.tuple(fc.scheduler(), fc.array(opArb, { minLength: 2, maxLength: 12 }));

  it('never returns content older than the last completed write to its path', async () => {
    let totalHits = 0;
    await fc.assert(
      fc.asyncProperty(scenarios, async ([s, ops]) => {
        const { violations, hits } = await runScenario(s, ops, new MemoryToolCacheStore());
        totalHits += hits;
        expect(violations).toEqual([]);
      }),
      { numRuns: 300 },
    );
    // The interleavings did exercise the cache, not only misses.
    expect(totalHits).toBeGreaterThan(0);
  });

  it('never returns content older than the last completed write with the memory store itself (synchronous hits, raw keys)', async () => {
    let totalHits = 0;
    await fc.assert(
      fc.asyncProperty(scenarios, async ([s, ops]) => {
        const { violations, hits } = await runScenario(s, ops, new MemoryToolCacheStore(), true);
        totalHits += hits;
        expect(violations).toEqual([]);
      }),
      { numRuns: 300 },
    );
    expect(totalHits).toBeGreaterThan(0);
  });

  it('finds a stale read when the store ignores the epoch (the property has teeth)', async () => {
    const result = await fc.check(
      fc.asyncProperty(scenarios, async ([s, ops]) => {
        const { violations } = await runScenario(s, ops, new NoEpochGuardStore());
        return violations.length === 0;
      }),
      { numRuns: 2000, seed: 42 },
    );
    expect(result.failed).toBe(true);
  });
});
