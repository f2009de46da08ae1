/**
 * A compaction that cannot buy the request its headroom waits (judge24: judge-2424, claude-3-5-haiku, and judge-795
 * before it). A compaction keeps the newest round; when that round holds the input over the threshold, compacting
 * every older round leaves it there, the next request compacts again (the round is an older one then), and what the
 * first compaction took (a file's newest text) is recalled by the next Edit. When even that compaction leaves the
 * request over the ceiling (half-way from the threshold to the window, the 5 % kept for the estimate and the
 * response) and the request fits the window without it, it waits for the next request. A compaction that brings
 * the request under the ceiling, or one the window needs, still runs.
 */
import { describe, expect, it } from 'vitest';
import { sessionOptions } from '../bench/judge.js';
import { compareTrace } from '../../src/replay/compare.js';
import { resolveProfile } from '../../src/models/profiles.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { parseTrace } from '../../src/trace/reader.js';
import { lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

const profile = { ...resolveProfile('claude-sonnet-4-6'), contextWindow: 12_000 };

/** Two small reads, a build log of `log` lines (the bulky newest round), then an Edit of the first file. */
function trace(fileLines: number, log: number) {
  return parseTrace(
    oneTurnTrace([
      ['Read', { file_path: 'src/a.ts' }, lines('a', fileLines)],
      ['Read', { file_path: 'src/b.ts' }, lines('b', fileLines)],
      ['Bash', { command: 'cat build.log' }, lines('log', log, 'logs the')],
      ['Edit', { file_path: 'src/a.ts', old_string: '   1\ta line 0', new_string: '   1\ta line zero' }, 'ok'],
    ]),
  );
}

const compacts = (r: { rendered: { decisions: readonly { type: string }[] } }): boolean => r.rendered.decisions.some((d) => d.type === 'compact');

describe('a compaction that cannot buy the request its headroom', () => {
  for (const policy of ['conservative', 'economy'] as const) {
    it(`waits while the request fits the window: the Edit finds its file visible (${policy})`, async () => {
      const c = await compareTrace(() => trace(12, 800), { profile, policy, onWarning: () => {} });
      // Request 3 sends the build log: 11.7k tokens of the 12k window without a compaction, 11.5k with one (over
      // the ceiling, 11.4k, either way).
      const third = c.engineResults[3]!.explain!.totalTokens;
      expect(third).toBeGreaterThan(0.95 * profile.contextWindow);
      expect(third).toBeLessThanOrEqual(profile.contextWindow);
      expect(compacts(c.engine[3]!)).toBe(false);
      // No forced recall: src/a.ts's text is still visible for the Edit.
      expect(c.engine.some((r) => r.forced)).toBe(false);
      expect(c.engine).toHaveLength(5);
      const self = c.summaries.find((s) => s.id === 'cachepoint')!;
      expect(self.rejected).toBe(0);
      expect(self.busts).toBe(0);
      // The next request takes the log (conservative: one compaction; economy prunes it or compacts).
      expect(c.engineResults[4]!.explain!.totalTokens).toBeLessThan(0.6 * profile.contextWindow);
      if (policy === 'conservative') expect(c.engine.filter(compacts).map((r) => r.index)).toEqual([4]);
    });
  }

  it('compacts what it can when the request would not fit the window without it', async () => {
    // 12.4k tokens without a compaction: over the window. Compacting the two reads brings it to 11.5k.
    const c = await compareTrace(() => trace(40, 800), { profile, onWarning: () => {} });
    expect(compacts(c.engine[3]!)).toBe(true);
    expect(c.engineResults[3]!.explain!.totalTokens).toBeLessThanOrEqual(profile.contextWindow);
    expect(c.summaries.find((s) => s.id === 'cachepoint')!.rejected).toBe(0);
  });

  it('compacts when that brings the request under the ceiling, though not under the threshold', async () => {
    // 11.8k tokens without a compaction (over the ceiling), 10.9k with one (over the threshold, 10.8k, under the ceiling).
    const c = await compareTrace(() => trace(40, 750), { profile, onWarning: () => {} });
    expect(compacts(c.engine[3]!)).toBe(true);
    const third = c.engineResults[3]!.explain!.totalTokens;
    expect(third).toBeGreaterThan(0.9 * profile.contextWindow);
    expect(third).toBeLessThanOrEqual(0.95 * profile.contextWindow);
  });

  it('judge-2424: the 186k-token result does not take the file the later Read asks for', async () => {
    const events = generateTrace(sessionOptions(2424));
    const c = await compareTrace(() => events, { policy: 'economy', onWarning: () => {} });
    expect(c.recalls.rounds).toBe(0);
    const self = c.summaries.find((s) => s.id === 'cachepoint')!;
    expect(self.rejected).toBe(0);
    expect(self.busts).toBe(0);
    // The request that sends the result holds over 95 % of the window, uncompacted.
    const window = c.engine[0]!.rendered.profile.contextWindow;
    const big = c.engineResults.findIndex((x) => (x.explain?.totalTokens ?? 0) > 0.95 * window);
    expect(big).toBeGreaterThan(0);
    expect(compacts(c.engine[big]!)).toBe(false);
    expect(c.engineResults[big]!.explain!.totalTokens).toBeLessThanOrEqual(window);
  });
});
