/**
 * Invariant 1: prune → compact → hidden replacements → cache points → tail,
 * every render. Each test shows one pass seeing the output of the one before.
 */
import { describe, expect, it } from 'vitest';
import { customProfile } from '../../src/models/profiles.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { type Pass, passContext } from '../../src/render/context.js';
import { PASSES, runPasses } from '../../src/render/pipeline.js';
import { render } from '../../src/render/render.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';

const profile = customProfile('order-test', { contextWindow: 27_000, prices: { input: 3 } });

/** Ten turns with big results, rendered warm; about 25k tokens visible, over 0.9 × 27k. */
function big(): { state: TimelineState; at: number } {
  let s = newSession();
  let at = 0;
  for (let t = 1; t <= 10; t++) {
    s = startTurn(s, `Task ${t}`);
    for (let r = 0; r < 3; r++) s = render(toolRound(s, 1, 2500), { profile, now: (at += 5000), compact: { enabled: false } }).state;
    s = finalAnswer(s);
  }
  return { state: startTurn(s, 'Task 11'), at };
}

describe('pass order', () => {
  it('is prune, compact, hide, cache points, tail', () => {
    expect(PASSES.map((p) => p.name)).toEqual(['prune', 'compact', 'hide', 'cache-points', 'tail']);
  });

  it('compaction sees the pruned state: a cold prune that brings the input under the ceiling leaves nothing to compact', () => {
    const { state, at } = big();
    const cold = at + 10 * 60_000;
    const withoutPrune = render(state, { profile, now: cold, prune: { enabled: false } });
    expect(withoutPrune.decisions.some((d) => d.type === 'compact')).toBe(true);
    const r = render(state, { profile, now: cold, prune: { reuse: false } });
    expect(r.decisions.some((d) => d.type === 'prune')).toBe(true);
    expect(r.decisions.some((d) => d.type === 'compact')).toBe(false);
    expect(r.tokens.total).toBeLessThan(0.9 * 27_000);
  });

  it('cache points are placed on the stream with replacements applied (prefix tokens count the note)', () => {
    let { state: s, at } = big();
    for (let r = 0; r < 5; r++) s = render(toolRound(s, 1, 2500), { profile, now: (at += 5000), compact: { enabled: false } }).state;
    const path = s.turns[10]!.rounds[3]!.results[0]!.path;
    const before = render(s, { profile, now: at + 1000, compact: { enabled: false } });
    const hidden = hideBlock(before.state, path, { profile, now: at + 2000, force: true }).state;
    const after = render(hidden, { profile, now: at + 3000, compact: { enabled: false } });
    const four = (r: typeof after) => r.cachePoints.find((p) => p.labels.includes(4))!;
    // ④ is after the hidden result: its prefix shrank by the payload minus the note.
    expect(four(after).path).toBe(four(before).path);
    expect(four(after).prefixTokens).toBeLessThan(four(before).prefixTokens - 400);
  });

  it('the tail is appended after the cache points: last and never marked', () => {
    const { state, at } = big();
    const r = render(setTail(state, 'live view'), { profile, now: at + 1000, compact: { enabled: false } });
    expect(r.stream.at(-1)!.segment).toBe('tail');
    expect(r.cachePoints.every((p) => p.index < r.tailStart)).toBe(true);
  });
});

describe('runPasses', () => {
  const byName = (name: string): Pass => PASSES.find((p) => p.name === name)!;
  const without = (name: string) => PASSES.filter((p) => p.name !== name);
  const swap = (a: string, b: string) => PASSES.map((p) => (p.name === a ? byName(b) : p.name === b ? byName(a) : p));

  it('is what render runs: the same stream, cache points and decisions', () => {
    const { state, at } = big();
    const cold = at + 10 * 60_000;
    const r = render(setTail(state, 'live view'), { profile, now: cold });
    const work = runPasses(PASSES, setTail(state, 'live view'), passContext(state, { profile, now: cold }));
    expect(work.stream).toEqual(r.stream);
    expect(work.cachePoints).toEqual(r.cachePoints);
    expect(work.decisions).toEqual(r.decisions);
    expect(work.tailStart).toBe(r.tailStart);
  });

  it('breaks when a pass is removed', () => {
    const { state, at } = big();
    const s = setTail(state, 'live view');
    const ctx = passContext(s, { profile, now: at + 10 * 60_000, prune: { reuse: false } });
    // Without the cold prune the input stays over the ceiling: compaction has to run.
    expect(runPasses(without('prune'), s, ctx).decisions.some((d) => d.type === 'compact')).toBe(true);
    expect(runPasses(without('hide'), s, ctx).stream.every((b) => b.segment === 'tail')).toBe(true);
    expect(runPasses(without('cache-points'), s, ctx).cachePoints).toEqual([]);
    expect(runPasses(without('tail'), s, ctx).stream.some((b) => b.segment === 'tail')).toBe(false);
  });

  it('breaks when two passes swap', () => {
    const { state, at } = big();
    const s = setTail(state, 'live view');
    const ctx = passContext(s, { profile, now: at + 10 * 60_000, prune: { reuse: false } });
    // Tail before placement: ④ lands on the tail, which must never carry a marker.
    const tailFirst = runPasses(swap('cache-points', 'tail'), s, ctx);
    expect(tailFirst.cachePoints.some((p) => tailFirst.stream[p.index]!.segment === 'tail')).toBe(true);
    // Compaction before the cold prune: it compacts what the prune alone would have brought under the ceiling.
    expect(runPasses(swap('prune', 'compact'), s, ctx).decisions.some((d) => d.type === 'compact')).toBe(true);
    expect(runPasses(PASSES, s, ctx).decisions.some((d) => d.type === 'compact')).toBe(false);
  });
});
