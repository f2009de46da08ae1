/**
 * A file's whole text (a Read naming only the file) after a partial read of the unchanged file (judge23: judge-1919,
 * judge-2072, judge-2108). The partial read becomes the file's newest text, but the whole text is still current and
 * the same whole read asked again wants it: 20–33 % of such texts were asked again up to 64 requests after the file
 * was touched, 10 % beyond (judge-0 … 449), where the one-shot lookups' figure (5 %, gone after ten requests) had
 * economy prune them, a recalled copy one request after its recall.
 */
import { describe, expect, it } from 'vitest';
import { sessionOptions } from '../bench/judge.js';
import { REUSE_MODEL, reuseOf, supersededAfter, supersededAfterScan } from '../../src/render/reuse.js';
import { replayAll } from '../../src/replay/replay.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { parseTrace } from '../../src/trace/reader.js';
import { type Call, ENV, lines, T0 } from '../helpers/one-turn-trace.js';

const A = '/repo/src/ledger.ts';
const text = lines('ledger', 2000);
const whole: Call = ['Read', { file_path: A }, text];
const partial: Call = ['Read', { file_path: A, offset: 1001, limit: 30 }, text.split('\n').slice(1000, 1030).join('\n')];
const grep = (k: number): Call => ['Grep', { pattern: `p${k}`, path: '/repo/src' }, lines(`grep${k}`, 30)];
/** Two turns of one call per round, 6 s apart, the second 10 minutes after the first (its cache entries expired). */
function twoTurnTrace(first: readonly Call[], second: readonly Call[]): string {
  const events: object[] = [ENV];
  let t = T0;
  let n = 0;
  for (const [k, calls] of [first, second].entries()) {
    if (k > 0) t += 10 * 60_000;
    events.push({ type: 'user', at: new Date(t).toISOString(), content: k === 0 ? 'fix the total' : 'now the refunds' });
    for (const [name, input, result] of calls) {
      const id = `toolu_${n++}`;
      t += 3000;
      events.push({ type: 'assistant', at: new Date(t).toISOString(), content: [{ type: 'tool_use', id, name, input }] });
      t += 3000;
      events.push({ type: 'tool_results', at: new Date(t).toISOString(), content: [{ type: 'tool_result', tool_use_id: id, content: result }] });
    }
    t += 3000;
    events.push({ type: 'assistant', at: new Date(t).toISOString(), content: [{ type: 'text', text: 'Done.' }] });
  }
  return events.map((e) => JSON.stringify(e)).join('\n');
}

const fileChance = (t: number): number => REUSE_MODEL.FILE_BASE + REUSE_MODEL.FILE_PEAK * Math.exp(-t / REUSE_MODEL.FILE_DECAY);

describe("a file's whole text after a partial read of it", () => {
  it('keeps the chance of a file being worked on, not a one-shot lookup’s', () => {
    let s: TimelineState = startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: ['x'], tools: [] }), 'go');
    const round = (id: string, name: string, input: Record<string, unknown>) => {
      s = appendResponse(s, [{ type: 'tool_use', id, name, input }]);
      s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: `out ${id}` }]);
    };
    round('w1', 'Read', { file_path: 'a.ts' });
    round('p1', 'Read', { file_path: 'a.ts', offset: 10, limit: 20 });
    for (let i = 0; i < 12; i++) round(`g${i}`, 'Grep', { pattern: `x${i}`, path: 'src' });
    const est = reuseOf(s, 'turns/1/rounds/1/results/w1');
    // Touched last by the partial read, 13 requests before the next one.
    expect(est.p).toBeCloseTo(fileChance(13));
    expect(est.why).toMatch(/whole text of a\.ts/);
    // The partial read is the file's newest text, as before.
    expect(reuseOf(s, 'turns/1/rounds/2/results/p1').p).toBeCloseTo(fileChance(13));
    // A partial read's text superseded by a newer read of the file is a one-shot lookup's, as before.
    round('p2', 'Read', { file_path: 'a.ts', offset: 40, limit: 20 });
    expect(reuseOf(s, 'turns/1/rounds/2/results/p1').p).toBeLessThanOrEqual(REUSE_MODEL.KEY_PEAK);
    expect(reuseOf(s, 'turns/1/rounds/1/results/w1').p).toBeCloseTo(fileChance(1));
    // Written since: stale, as any call's result.
    round('e1', 'Edit', { file_path: 'a.ts', old_string: 'x', new_string: 'y' });
    expect(reuseOf(s, 'turns/1/rounds/1/results/w1').p).toBe(0);
  });

  it('economy keeps a recalled copy of it visible until the whole read is asked again: one recall forced, not two', async () => {
    // Turn 1 reads the whole file and moves on; after a 10-minute gap the cold prune removes the text; turn 2's
    // partial read forces its recall (the file's newest text then), and the same whole read follows.
    const trace = twoTurnTrace([whole, ...Array.from({ length: 30 }, (_, i) => grep(i + 20))], [partial, grep(9), grep(10), grep(11), whole]);
    const reqs = await replayAll(parseTrace(trace), { policy: 'economy', recalls: true, expectedRemaining: 40 });
    const forced = reqs.flatMap((r) => r.forced ?? []);
    expect(forced.map((f) => [f.path, f.by, f.target])).toEqual([['turns/1/rounds/1/results/toolu_0', 'Read', A]]);
  });

  it('judge-1919: the recalled copy of README.md is not pruned before the whole read asks for it again', async () => {
    const reqs = await replayAll(generateTrace(sessionOptions(1919)), { policy: 'economy', recalls: true, onWarning: () => {} });
    const forced = reqs.flatMap((r) => r.forced ?? []);
    expect(forced.filter((f) => f.path.includes('/toolu_recall_'))).toEqual([]);
    expect(forced.length).toBeLessThan(6);
  }, 60_000);
});

/** A timeline of one call per round, each result `out <id>` (check23: the cases judge23's rule does not name). */
function rounds(calls: readonly [id: string, name: string, input: Record<string, unknown>][]): TimelineState {
  let s: TimelineState = startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: ['x'], tools: [] }), 'go');
  for (const [id, name, input] of calls) {
    s = appendResponse(s, [{ type: 'tool_use', id, name, input }]);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: `out ${id}` }]);
  }
  return s;
}
const W1 = 'turns/1/rounds/1/results/w1';

describe("a file's whole text: the cases around the rule", () => {
  it('written between the whole read and the partial one: stale, 0', () => {
    const s = rounds([
      ['w1', 'Read', { file_path: '/r/a.ts' }],
      ['e1', 'Edit', { file_path: '/r/a.ts', old_string: 'x', new_string: 'y' }],
      ['p1', 'Read', { file_path: '/r/a.ts', offset: 10, limit: 20 }],
    ]);
    expect(reuseOf(s, W1).p).toBe(0);
  });

  it('a partial read of another file of the same name elsewhere leaves the whole text the file’s newest', () => {
    const s = rounds([
      ['w1', 'Read', { file_path: '/r/a/index.ts' }],
      ['p1', 'Read', { file_path: '/r/b/index.ts', offset: 10, limit: 20 }],
    ]);
    expect(reuseOf(s, W1)).toMatchObject({ p: fileChance(2), file: true, why: expect.stringMatching(/^newest text of \/r\/a\/index\.ts/) });
  });

  it('the same whole read after the partial one supersedes the first: 0, the newer one the file’s', () => {
    const s = rounds([
      ['w1', 'Read', { file_path: '/r/a.ts' }],
      ['p1', 'Read', { file_path: '/r/a.ts', offset: 10, limit: 20 }],
      ['w2', 'Read', { file_path: '/r/a.ts' }],
    ]);
    expect(reuseOf(s, W1).p).toBe(0);
    expect(reuseOf(s, 'turns/1/rounds/3/results/w2')).toMatchObject({ p: fileChance(1), file: true });
  });

  it('a partial read spelling the path another way replaces the same file’s text: the whole text keeps the file’s chance', () => {
    const s = rounds([
      ['w1', 'Read', { file_path: '/r/src/a.ts' }],
      ['p1', 'Read', { file_path: '/r/./src/a.ts', offset: 10, limit: 20 }],
      ['g1', 'Grep', { pattern: 'x', path: '/r/src' }],
    ]);
    expect(reuseOf(s, W1)).toMatchObject({ p: fileChance(2), file: true, why: expect.stringMatching(/^whole text of \/r\/src\/a\.ts/) });
  });

  it('long after a lookup’s chance underflows to 0, the whole text is still not superseded (the fast path agrees with the scan)', () => {
    // KEY_PEAK × exp(−(age − 1) / KEY_DECAY) is 0 in doubles past ~2,240 requests; the file's figure never is.
    const calls: [string, string, Record<string, unknown>][] = [
      ['w1', 'Read', { file_path: '/r/a.ts' }],
      ['p1', 'Read', { file_path: '/r/a.ts', offset: 10, limit: 20 }],
    ];
    for (let i = 0; i < 2400; i++) calls.push([`g${i}`, 'Grep', { pattern: `x${i}`, path: '/r/src' }]);
    const s = rounds(calls);
    expect(reuseOf(s, W1).p).toBeCloseTo(REUSE_MODEL.FILE_BASE);
    expect(supersededAfterScan(s, 0).has(W1)).toBe(false);
    expect(supersededAfter(s, 0).has(W1)).toBe(false);
  });
});
