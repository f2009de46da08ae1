import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { idealBound } from '../../src/sim/ideal.js';
import { resolveProfile } from '../../src/models/profiles.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { parseTrace } from '../../src/trace/reader.js';
import { lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

/**
 * A request over the threshold that no compaction can bring under it: the newest round always stays visible, and
 * here it holds a 187k-token tool result on a 200k-window model (judge-795 of the judge's sweep, claude-opus-4). The
 * next request compacts (that round is then an older one), so everything after the summaries is re-written there:
 * an entry this request writes past the summaries is never read. Before the fix ④ went on the newest block as
 * usual and wrote the 187k tokens at 1.25× (conservative 23.5 % over its own ideal, away from anything only
 * clairvoyance buys); sent uncached they cost 1×. This request compacted the older rounds too, for 1 % of the
 * window, until judge24 (compact-waits.test.ts): it waits for the next request's compaction now.
 */
describe('a request that no compaction brings under the threshold', () => {
  it('writes nothing past the summaries, which the compaction of the next request re-writes (judge-795)', async () => {
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
    const window = c.engine[0]!.rendered.profile.contextWindow;
    const first = c.engineResults.findIndex((x) => (x.explain?.totalTokens ?? 0) > 0.9 * window);
    expect(first).toBeGreaterThan(0);
    expect(compacts(first)).toBe(false);
    expect(compacts(first + 1)).toBe(true);
    const ideal = idealBound(c.engine.map((r) => ({ at: r.at, params: r.request }))).ideal5m.requests;
    // The ideal writes only what the next request reads: the envelope and the first summary.
    expect(c.engineResults[first]!.usage!.cache_creation_input_tokens).toBeLessThan(1_000);
    expect(c.engineResults[first]!.cost!.total).toBeCloseTo(ideal[first]!.cost, 6);
    // The next request reads what this one wrote.
    expect(c.engineResults[first + 1]!.usage!.cache_read_input_tokens).toBeGreaterThanOrEqual(c.engineResults[first]!.explain!.writes.at(-1)?.tokens ?? 0);
    expect(c.summaries.find((s) => s.id === 'cachepoint')!.busts).toBe(0);
    expect(c.engine.length).toBe(10);
  });

  // The first round's result alone takes the input over the threshold: no compaction yet (the newest round is never
  // compacted), the next request's takes it. The user message after the envelope is where that compaction starts,
  // but the first request wrote an entry there: it is read (the bridge puts a point on it), not missed.
  it('still reads an entry past the summaries that the provider holds', async () => {
    const profile = { ...resolveProfile('claude-sonnet-4-6'), contextWindow: 12_000 };
    const events = parseTrace(
      oneTurnTrace([
        ['Read', { file_path: 'src/big.ts' }, lines('big', 720)],
        ['Read', { file_path: 'src/small.ts' }, lines('small', 5)],
      ]),
    );
    const c = await compareTrace(() => events, { profile, onWarning: () => {} });
    expect(c.engine).toHaveLength(3);
    expect(c.engine[1]!.rendered.decisions.some((d) => d.type === 'compact')).toBe(false);
    expect(c.engineResults[1]!.explain!.totalTokens).toBeGreaterThan(0.9 * profile.contextWindow);
    expect(c.engine[2]!.rendered.decisions.some((d) => d.type === 'compact')).toBe(true);
    // Request 1 reads everything request 0 wrote (envelope and user message) and writes nothing past it.
    const written = Math.max(...c.engineResults[0]!.explain!.markers.filter((m) => m.outcome === 'write').map((m) => m.tokens));
    expect(c.engineResults[1]!.usage!.cache_read_input_tokens).toBe(written);
    expect(c.engineResults[1]!.usage!.cache_creation_input_tokens).toBe(0);
    expect(c.summaries.find((s) => s.id === 'cachepoint')!.busts).toBe(0);
  });

  // The user message alone takes the first request over the threshold, and nothing before it can be compacted: the
  // next request cannot compact either (the user message goes with round 1, the newest round then), so it reads what
  // this one writes. Only the request after that compacts (round 1 is an older one there).
  it("writes the turn's first request when the next one cannot compact (a huge user message)", async () => {
    const profile = { ...resolveProfile('claude-sonnet-4-6'), contextWindow: 12_000 };
    const events = parseTrace(
      oneTurnTrace(
        [
          ['Read', { file_path: 'src/a.ts' }, lines('a', 5)],
          ['Read', { file_path: 'src/b.ts' }, lines('b', 5)],
        ],
        lines('doc', 760),
      ),
    );
    const c = await compareTrace(() => events, { profile, onWarning: () => {} });
    expect(c.engineResults[0]!.explain!.totalTokens).toBeGreaterThan(0.9 * profile.contextWindow);
    expect(c.engine.slice(0, 2).some((r) => r.rendered.decisions.some((d) => d.type === 'compact'))).toBe(false);
    expect(c.engine[2]!.rendered.decisions.some((d) => d.type === 'compact')).toBe(true);
    // Request 1 reads the whole of request 0 (the user message included); only its own round is sent uncached.
    const first = c.engineResults[0]!.explain!.totalTokens;
    expect(c.engineResults[0]!.usage!.cache_creation_input_tokens).toBe(first);
    expect(c.engineResults[1]!.usage!.cache_read_input_tokens).toBe(first);
    expect(c.engineResults[1]!.usage!.input_tokens + c.engineResults[1]!.usage!.cache_creation_input_tokens).toBe(
      c.engineResults[1]!.explain!.totalTokens - first,
    );
  });
});
