import { describe, expect, it } from 'vitest';
import { render } from '../../src/render/render.js';
import { recall } from '../../src/render/hide-block.js';
import { PRUNE_NOTICE } from '../../src/render/notes.js';
import { startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { assertPrefixStable } from '../../src/testing/stability.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';

const MIN = 60_000;

/** Three turns of rounds with large results, rendered warm every 10 s. */
function warmSession(): { state: TimelineState; at: number } {
  let s = newSession();
  let at = 0;
  for (let t = 1; t <= 3; t++) {
    s = startTurn(s, `Task ${t}`);
    for (let r = 0; r < 5; r++) {
      s = render(s, { now: (at += 10_000) }).state;
      s = toolRound(s, 2, r % 2 === 0 ? 4000 : 200);
    }
    s = render(s, { now: (at += 10_000) }).state;
    s = finalAnswer(s);
  }
  s = startTurn(s, 'Task 4');
  return { state: s, at };
}

describe('prune', () => {
  it('never prunes inside a warm window (conservative)', () => {
    const { state, at } = warmSession();
    const r = render(state, { now: at + 4 * MIN });
    expect(r.decisions).toEqual([]);
    expect(Object.keys(r.state.hidden)).toHaveLength(0);
  });

  it('prunes old bulky results once the cache went cold, and keeps recent ones', () => {
    const { state, at } = warmSession();
    // Every helper Read is the newest text of its own file: the windows alone decide here.
    const r = render(state, { now: at + 6 * MIN, prune: { reuse: false } });
    const pruned = r.decisions.filter((d) => d.type === 'prune');
    expect(pruned.length).toBeGreaterThan(0);
    for (const d of pruned) {
      // Older than the 2 most recent turns (3 and 4) and the 8 most recent rounds
      // (turn 3 has 6, so turn 2 keeps rounds 5-6), and above 1,000 chars.
      expect(d.path).toMatch(/^turns\/(1\/|2\/rounds\/[1-4]\/)/);
      expect(r.state.hidden[d.path]!.chars).toBeGreaterThanOrEqual(1000);
    }
    const kept = r.stream.filter((b) => b.turn === 3 && b.kind === 'result');
    expect(kept.every((b) => b.hidden === undefined)).toBe(true);
    const big = r.stream.filter((b) => b.turn === 1 && b.kind === 'result' && b.hidden === undefined);
    expect(big.every((b) => JSON.stringify(b.param).length < 1100)).toBe(true);
  });

  it('recalls every pruned payload byte-identical', () => {
    const { state, at } = warmSession();
    const r = render(state, { now: at + 6 * MIN });
    for (const path of Object.keys(r.state.hidden)) {
      const original = state.turns.flatMap((t) => t.rounds.flatMap((x) => [...x.response, ...x.results])).find((b) => b.path === path)!;
      expect(JSON.stringify(recall(r.state, path))).toBe(JSON.stringify(original.param));
      const shown = r.stream.find((b) => b.path === path)!;
      expect(JSON.stringify(shown.param)).toContain(`recall(\\"${path}\\")`);
    }
  });

  it('is sticky: later warm renders keep the same bytes (prefix stable again)', () => {
    const { state, at } = warmSession();
    const cold = render(state, { now: at + 6 * MIN });
    let s = toolRound(cold.state);
    const warm1 = render(s, { now: at + 6 * MIN + 10_000 });
    assertPrefixStable(cold, warm1);
    s = toolRound(warm1.state);
    const warm2 = render(s, { now: at + 6 * MIN + 20_000 });
    assertPrefixStable(warm1, warm2);
    expect(warm2.decisions).toEqual([]);
    expect(Object.keys(warm2.state.hidden)).toEqual(Object.keys(cold.state.hidden));
  });

  it('shows the one-time notice once', () => {
    const { state, at } = warmSession();
    const first = render(state, { now: at + 6 * MIN, prune: { reuse: false } });
    expect(first.decisions.filter((d) => d.type === 'notice')).toHaveLength(1);
    const notices = (r: typeof first) => r.stream.filter((b) => b.kind === 'notice');
    expect(notices(first)).toHaveLength(1);
    expect(JSON.stringify(notices(first)[0]!.param)).toContain(PRUNE_NOTICE.slice(0, 40));
    // A second cold window prunes more but adds no second notice.
    let s = finalAnswer(toolRound(toolRound(first.state, 1, 5000), 1, 5000));
    s = startTurn(s, 'Task 5');
    s = startTurn(finalAnswer(toolRound(s, 1, 5000)), 'Task 6');
    const second = render(s, { now: at + 20 * MIN, prune: { reuse: false } });
    expect(second.decisions.some((d) => d.type === 'prune')).toBe(true);
    expect(second.decisions.some((d) => d.type === 'notice')).toBe(false);
    expect(notices(second)).toHaveLength(1);
  });

  it('economy prunes while warm only when the gate says the re-write pays back', () => {
    const { state, at } = warmSession();
    // Windows of 4 rounds: a prune re-writes the rounds after it, so it must pay back.
    const prune = { keepTurns: 1, keepRounds: 4, minChars: 600, reuse: false };
    const r = render(state, { now: at + 10_000, policy: 'economy', prune, expectedRemaining: 40 });
    const pruned = r.decisions.filter((d) => d.type === 'prune');
    expect(pruned.length).toBeGreaterThan(0);
    for (const d of pruned) {
      expect(d.type === 'prune' && d.price!.warm).toBe(true);
      expect(d.type === 'prune' && d.price!.saving > d.price!.rewrite).toBe(true);
    }
    // With no requests left, the same re-write does not pay back.
    const none = render(state, { now: at + 10_000, policy: 'economy', prune, expectedRemaining: 0 });
    expect(none.decisions.filter((d) => d.type === 'prune')).toHaveLength(0);
  });

  it('economy never writes what the next request prunes: ④ stops before the newest bulky result (windows only, no re-use)', () => {
    let s = startTurn(newSession(), 'Task');
    let at = 0;
    for (let i = 0; i < 4; i++) s = render(toolRound(s, 1, 200), { now: (at += 5000), policy: 'economy', prune: { reuse: false } }).state;
    s = toolRound(s, 2, 3000);
    const first = render(s, { now: (at += 5000), policy: 'economy', prune: { reuse: false } });
    const four = first.cachePoints.find((p) => p.labels.includes(4))!;
    const round = s.turns[0]!.rounds.at(-1)!;
    // ④ sits before the round's results run, which goes uncached.
    expect(four.path).toBe(round.response.at(-1)!.path);
    expect(first.plan.usage.input_tokens).toBeGreaterThan(1000);
    // The next request prunes those results with nothing to re-write before them.
    const second = render(toolRound(first.state, 1, 200), { now: (at += 5000), policy: 'economy', prune: { reuse: false } });
    const pruned = second.decisions.filter((d) => d.type === 'prune').map((d) => d.path);
    expect(pruned).toEqual(expect.arrayContaining(round.results.map((b) => b.path)));
    expect(second.plan.read?.tokens).toBe(four.prefixTokens);
    expect(second.plan.bust).toBe(false);
  });

  it('can be disabled', () => {
    const { state, at } = warmSession();
    expect(render(state, { now: at + 60 * MIN, prune: { enabled: false } }).decisions).toEqual([]);
  });
});
