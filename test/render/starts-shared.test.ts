/**
 * The layout's turn and round starts after a rewrite (a hide or prune in the newest rounds: projection.ts
 * sharedStarts): the previous build's arrays go on when no entry they hold changes, instead of a copy of O(turns)
 * or, in a long open turn, O(rounds) entries per request (a rewrite that moves where turns or rounds start gets
 * arrays of its own). Every render reads its own starts (incremental.test.ts, chain-branches.test.ts and
 * economy-branches.test.ts compare each render with a from-scratch one).
 */
import { describe, expect, it } from 'vitest';
import { hideBlock } from '../../src/render/hide-block.js';
import { streamLayout, type StreamLayout } from '../../src/render/projection.js';
import { render } from '../../src/render/render.js';
import { startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';

/** The layout of a render's stable stream, and the state it leaves. */
function renderAt(state: TimelineState, now: number): { layout: StreamLayout; state: TimelineState } {
  const r = render(state, { now });
  return { layout: streamLayout(r.stream)!, state: r.state };
}

/** The last tool result of the state's last round. */
function lastResultPath(state: TimelineState): string {
  const round = state.turns.at(-1)!.rounds.at(-1)!;
  return round.results.at(-1)!.path;
}

describe('stableStream starts after a rewrite', () => {
  it('keeps the previous build’s round starts when a hide in the newest round moves no start (one open turn)', () => {
    let s = startTurn(newSession(), 'start');
    for (let i = 0; i < 40; i++) s = toolRound(s, 1 + (i % 2), 120);
    const first = renderAt(s, 1_000);
    s = toolRound(first.state, 1, 120);
    const appended = renderAt(s, 2_000);
    expect(appended.layout.lastRounds.starts).toBe(first.layout.lastRounds.starts);
    // A hide rewrites the stream from the hidden block (a new chain), but no round starts elsewhere.
    const hidden = hideBlock(appended.state, lastResultPath(appended.state), { now: 3_000, force: true }).state;
    const rewritten = renderAt(hidden, 3_000);
    expect(rewritten.layout.chain).not.toBe(appended.layout.chain);
    expect(rewritten.layout.lastRounds.starts).toBe(appended.layout.lastRounds.starts);
    expect(rewritten.layout.turnStarts).toBe(appended.layout.turnStarts);
  });

  it('keeps the turn starts on a rewrite in the last turn of a many-turn session', () => {
    let s = newSession();
    for (let t = 0; t < 12; t++) {
      s = startTurn(s, `turn ${t}`);
      for (let i = 0; i < 3; i++) s = toolRound(s, 1, 80);
      s = finalAnswer(s);
    }
    s = toolRound(startTurn(s, 'last'), 1, 80);
    const before = renderAt(s, 1_000);
    const hidden = hideBlock(before.state, lastResultPath(before.state), { now: 2_000, force: true }).state;
    const after = renderAt(hidden, 2_000);
    expect(after.layout.chain).not.toBe(before.layout.chain);
    expect(after.layout.turnStarts).toBe(before.layout.turnStarts);
    // Each start it reads is where its turn starts.
    const stream = render(hidden, { now: 2_000 }).stream;
    for (let t = 0; t < hidden.turns.length; t++) expect(stream[after.layout.turnStarts[t]!]!.turn).toBe(t + 1);
  });
});
