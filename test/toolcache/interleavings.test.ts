/**
 * The staleness promise under systematic interleavings, on the memory store: two caches of one fleet sharing a
 * store (wrapped, so every store operation is a scheduling point and can fail; or the memory store itself, whose
 * hits are synchronous), with reads, whole-family reads, second-TTL reads, writes (successful, throwing, is_error),
 * turn and clock ticks and store faults. Seeds are fixed; the oracle is in interleavings.ts.
 */

import { describe, expect, it } from 'vitest';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { StoredEntry, ToolCacheStore } from '../../src/toolcache/store.js';
import { drawScenario, type Outcome, prng, runScenario, Scheduler, scheduledStore } from './interleavings.js';

const REPLICAS = 2;

async function explore(seed: number, direct: boolean, store: () => ToolCacheStore = () => new MemoryToolCacheStore()): Promise<Outcome> {
  const random = prng(seed);
  const ops = drawScenario(random, 6 + Math.floor(random() * 11), REPLICAS).filter((o) => !direct || o.kind !== 'fault');
  const s = new Scheduler(random);
  return runScenario(
    s,
    ops,
    async (sched, faults, onInvalidated) => {
      const shared = store();
      return {
        stores: Array.from({ length: REPLICAS }, (_, r) =>
          direct ? shared : scheduledStore(sched, shared, `store${r}`, faults[r]!, { onInvalidated: (tags) => onInvalidated(r, tags) }),
        ),
      };
    },
    REPLICAS,
  );
}

function report(seed: number, o: Outcome): string {
  return `seed ${seed}: ${[...o.violations, ...o.errors.map(String)].join('\n')}\ntrace: ${o.trace.join(' | ')}`;
}

/** A store that forgets the epoch guard: the exploration must catch it. */
class NoEpochGuardStore extends MemoryToolCacheStore {
  override async insertIfEpoch(entry: StoredEntry): Promise<boolean> {
    return super.insertIfEpoch(entry, await this.epoch());
  }
}

describe('ToolCache fleet on one memory store: explored interleavings', () => {
  for (const direct of [false, true]) {
    it(`never serves a stale or expired answer (${direct ? 'the memory store itself' : 'every store operation a scheduling point, with faults'}; 1,000 fixed seeds; EXPLORE_SEEDS for more)`, {
      timeout: 600_000,
    }, async () => {
      const totals: Record<string, number> = {};
      for (let seed = 1; seed <= Number(process.env.EXPLORE_SEEDS ?? 1000); seed++) {
        const o = await explore(seed, direct);
        if (o.violations.length > 0 || o.errors.length > 0) expect.fail(report(seed, o));
        for (const [k, n] of Object.entries(o.counts)) totals[k] = (totals[k] ?? 0) + n;
      }
      // The seeds are fixed, so these are facts about this exploration, not luck: it served hits and joined runs.
      expect(totals['read:hit'] ?? 0).toBeGreaterThan(0);
      expect(totals['stat:hit'] ?? 0).toBeGreaterThan(0);
      expect((totals['read:shared'] ?? 0) + (totals['stat:shared'] ?? 0)).toBeGreaterThan(0);
      if (!direct) expect(totals['read:bypass'] ?? 0).toBeGreaterThan(0);
    });
  }

  it('finds a stale read when the store ignores the epoch (the exploration has teeth)', async () => {
    let found = 0;
    for (let seed = 1; seed <= 3000 && found === 0; seed++) {
      const o = await explore(seed, false, () => new NoEpochGuardStore());
      if (o.violations.some((v) => v.includes('was written before it started'))) found++;
    }
    expect(found).toBeGreaterThan(0);
  });
});
