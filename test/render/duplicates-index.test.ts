/**
 * The duplicates index of the re-use model (reuse.ts `duplicatesOf`: the hidden blocks pointed at each path by
 * `sameAs`) against its definition: the set's records in its order, filtered by target. Random update sequences
 * with a fixed seed, as the prune pass makes them (each set made from the previous one, sometimes several updates
 * between two look-ups, batches small and large, many targets and a few that gather many duplicates), so the
 * index's levels are copied, started and merged; every version read again later still gives its own lists.
 */
import { describe, expect, it } from 'vitest';
import { duplicatesOf } from '../../src/render/reuse.js';
import { Rng } from '../../src/synthetic/rng.js';
import { HiddenSet } from '../../src/timeline/hidden.js';
import type { HiddenRecord } from '../../src/timeline/types.js';

/** The definition: the paths of the first `n` records (the set's order: every path is new) pointed at `target`. */
function pointedAt(records: readonly HiddenRecord[], n: number, target: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) if (records[i]!.sameAs === target) out.push(records[i]!.path);
  return out;
}

describe('duplicates index (reuse.ts) equals the scan of the hidden set', () => {
  it('on random update sequences (fixed seed), every version, read at once or later', () => {
    const rng = new Rng('duplicates-index-20261201');
    const targets = Array.from({ length: 400 }, (_, i) => `turns/1/rounds/${1 + i}/results/toolu_t${i}`);
    const hot = targets.slice(0, 5);
    let set = HiddenSet.fromPlain(Object.freeze({}));
    const versions: { set: HiddenSet; n: number }[] = [{ set, n: 0 }];
    const all: HiddenRecord[] = [];
    let serial = 0;
    let pointed = 0;
    for (let step = 0; step < 600; step++) {
      const size = rng.chance(0.05) ? rng.int(10, 60) : rng.int(1, 3);
      const records: HiddenRecord[] = [];
      for (let k = 0; k < size; k++) {
        const path = `turns/2/rounds/${1 + step}/results/toolu_${serial++}`;
        // Most prunes point nowhere; a duplicate points at one of many targets, or at one of a few hot ones.
        const sameAs = rng.chance(0.5) ? undefined : rng.chance(0.3) ? hot[rng.int(0, hot.length - 1)]! : targets[rng.int(0, targets.length - 1)]!;
        if (sameAs !== undefined) pointed++;
        records.push({ path, reason: 'economy', note: `[pruned: ${serial}]`, chars: serial, ...(sameAs !== undefined ? { sameAs } : {}) });
      }
      set = set.with(records);
      all.push(...records);
      versions.push({ set, n: all.length });
      // Looked up after most updates (the index derived from the previous one), sometimes only after a few.
      if (rng.chance(0.7))
        for (const t of [...hot, targets[rng.int(0, targets.length - 1)]!]) expect(duplicatesOf(set, t)).toEqual(pointedAt(all, all.length, t));
    }
    expect(pointed).toBeGreaterThan(500);
    for (const v of versions.filter((_, i) => i % 7 === 0))
      for (const t of [...hot, ...targets.slice(0, 60)]) expect(duplicatesOf(v.set, t)).toEqual(pointedAt(all, v.n, t));
    expect(duplicatesOf(set, 'turns/9/rounds/1/results/none')).toEqual([]);
  });
});
