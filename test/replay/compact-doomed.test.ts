import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { idealBound } from '../../src/sim/ideal.js';
import { generateTrace } from '../../src/synthetic/generate.js';

/**
 * A compaction that cannot get the input under the threshold: the newest round always stays visible, and here it
 * holds a 187k-token tool result on a 200k-window model (judge-795 of the judge's sweep, claude-opus-4). The next
 * request compacts again (that round is then an older one), so everything after the summaries is re-written there:
 * an entry this request writes past the summaries is never read. Before the fix ④ went on the newest block as
 * usual and wrote the 187k tokens at 1.25× (conservative 23.5 % over its own ideal, away from anything only
 * clairvoyance buys); sent uncached they cost 1×.
 */
describe('a compaction that leaves the input over the threshold', () => {
  it('writes nothing past the summaries, which the next compaction re-writes (judge-795)', async () => {
    const events = generateTrace({
      seed: 'judge-795',
      profile: 'coding',
      requests: 9,
      rounds: { median: 4, min: 1, max: 60 },
      idleGaps: { over5m: 0, over1h: 0 },
      fanout: { rounds: 0 },
      hugeResults: 1,
      hugeRate: 0,
      resultScale: 1,
      thinkingRate: 0.3,
      redactedRate: 0,
      errorRate: 0.04,
      tail: false,
      hides: true,
      envelopeChange: false,
      revisits: true,
      distinctSearches: true,
      distinctLookups: true,
      model: 'claude-opus-4',
    });
    const c = await compareTrace(() => events, { onWarning: () => {} });
    const compacts = (i: number): boolean => c.engine[i]!.rendered.decisions.some((d) => d.type === 'compact');
    const first = c.engine.findIndex((_, i) => compacts(i) && compacts(i + 1));
    expect(first).toBeGreaterThan(0);
    const profile = c.engine[first]!.rendered.profile;
    expect(c.engineResults[first]!.explain!.totalTokens).toBeGreaterThan(0.9 * profile.contextWindow);
    const ideal = idealBound(c.engine.map((r) => ({ at: r.at, params: r.request }))).ideal5m.requests;
    // The ideal writes only what the next request reads: the envelope and the first summary.
    expect(c.engineResults[first]!.usage!.cache_creation_input_tokens).toBeLessThan(1_000);
    expect(c.engineResults[first]!.cost!.total).toBeCloseTo(ideal[first]!.cost, 6);
    // The next request reads what this one wrote.
    expect(c.engineResults[first + 1]!.usage!.cache_read_input_tokens).toBeGreaterThanOrEqual(c.engineResults[first]!.explain!.writes.at(-1)?.tokens ?? 0);
    expect(c.summaries.find((s) => s.id === 'cachepoint')!.busts).toBe(0);
    expect(c.engine.length).toBe(10);
  });
});
