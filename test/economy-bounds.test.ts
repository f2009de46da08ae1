/**
 * The economy policy on every committed fixture, priced with its forced
 * recalls (src/replay/recalls.ts) against the best peer (which is charged its
 * own recalls when it masks; src/replay/compare.ts): the ratio may not get
 * worse than measured, forced recalls stay at or under 2 per 100 requests,
 * and the conservative policy forces none from a warm prune (it never prunes
 * while warm). `npm run bench -- cost` prints the same figures.
 *
 * Bounds: the ratio measured on 2026-11-30 (`npm run bench -- cost`) plus
 * 0.005. Lowering a bound is progress; raising one needs a reason in the
 * commit. The product target is ≤ 0.60 (issue 17); where it is not met, the
 * prune floor (docs/benchmarks.md, cost) says why.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compareTrace, type TraceComparison } from '../src/replay/compare.js';
import { readTrace } from '../src/trace/reader.js';

/** Economy's cost including forced recalls ÷ the best peer's, as measured (2026-11-30, 22:28 UTC). */
const MEASURED: Readonly<Record<string, number>> = {
  'coding.jsonl': 0.942,
  'compaction.jsonl': 0.471,
  'demo.jsonl': 0.841,
  'fanout.jsonl': 0.966,
  'long-idle.jsonl': 0.482,
  'mixed-1.jsonl': 0.998,
  'mixed-2.jsonl': 0.975,
  'mixed-3.jsonl': 0.936,
  'mixed-4.jsonl': 0.987,
  'research.jsonl': 0.461,
  'revisits.jsonl': 0.83,
  'volatile-tail.jsonl': 0.524,
};

const NON_PEERS = new Set(['cachepoint', 'ideal', 'ideal_5m']);
const FIXTURES = readdirSync('fixtures')
  .filter((f) => f.endsWith('.jsonl'))
  .sort();

const cost = (c: TraceComparison): number => c.summaries.find((s) => s.id === 'cachepoint')!.cost;

describe('economy against the best peer, forced recalls included', () => {
  it('has a bound for every committed fixture', () => {
    expect(Object.keys(MEASURED).sort()).toEqual(FIXTURES);
  });

  for (const file of FIXTURES) {
    it(file, async () => {
      const load = () => readTrace(`fixtures/${file}`);
      const conservative = await compareTrace(load, {});
      const economy = await compareTrace(load, { policy: 'economy' });
      const best = Math.min(...conservative.summaries.filter((s) => !NON_PEERS.has(s.id) && s.rejected === 0).map((s) => s.cost));
      expect(cost(economy) / best, `${file}: economy ÷ best peer`).toBeLessThanOrEqual(MEASURED[file]! + 0.005);
      expect(economy.recalls.per100, `${file}: economy's forced recalls per 100 requests`).toBeLessThanOrEqual(2);
      expect(conservative.recalls.byReason.economy ?? 0, `${file}: conservative forces none while warm`).toBe(0);
      // Never dearer than conservative by more than 0.5 % (the remaining-requests estimate bets on late warm
      // prunes that a session's end can make dearer; docs/benchmarks.md). Measured: at most ×0.998 (mixed-1).
      expect(cost(economy) / cost(conservative), `${file}: economy ÷ conservative`).toBeLessThanOrEqual(1.005);
    }, 180_000);
  }
});
