/**
 * sharedTurns: where two versions of a session's turns array first differ, found through the edits' records (a few
 * hops) instead of comparing every turn; what the renderer uses to take over the previous stream
 * (render/projection.ts) and to continue the session's re-use walk (render/reuse.ts).
 */
import { describe, expect, it } from 'vitest';
import { foldSentTail } from '../../src/render/bind.js';
import { passContext } from '../../src/render/context.js';
import { render } from '../../src/render/render.js';
import { appendToolResults, setTail, sharedTurns, startTurn } from '../../src/timeline/edit.js';
import type { Turn } from '../../src/timeline/types.js';
import { newSession, toolRound } from '../helpers/build.js';

/** The first index from `from` on where the two arrays differ, at most `limit` (from when from > limit), compared. */
function scan(a: readonly Turn[], b: readonly Turn[], limit: number, from: number): number {
  let k = from;
  while (k < limit && a[k] === b[k]) k++;
  return k;
}

/** Versions of a session of `turns` turns: new turns, tool rounds, injected text, branches, binding folds of a sent tail. */
function versionsOf(turns: number): (readonly Turn[])[] {
  let s = newSession('claude-sonnet-5-5');
  const versions: (readonly Turn[])[] = [];
  for (let i = 0; i < turns; i++) {
    s = startTurn(s, `turn ${i}`);
    versions.push(s.turns);
    for (let r = 0; r < 1 + (i % 3); r++) {
      s = toolRound(s, 1 + (r % 2), 200);
      versions.push(s.turns);
    }
    // Text the runtime injects after the results: the last turn replaced again.
    if (i % 4 === 1) {
      s = appendToolResults(s, [], [`note ${i}`]);
      versions.push(s.turns);
    }
    // A branch from an older version: another turn after the same ones.
    if (i % 5 === 2) versions.push(startTurn(s, `branch ${i}`).turns);
    // The binding fold of a sent tail (render/bind.ts): a turn replaced, the last or (a turn started since) the one before.
    s = setTail(s, [{ type: 'text', text: `live ${i}` }]);
    const r = render(s, { now: 1000 * i });
    versions.push(r.state.turns);
    const answered = toolRound(r.state, 1, 50);
    versions.push(answered.turns, foldSentTail(answered, passContext(r.state, {})).turns);
    if (i % 3 === 0) {
      // Answered, then a new turn: the fold replaces the turn before the last.
      const next = startTurn(answered, `next ${i}`);
      versions.push(next.turns, foldSentTail(next, passContext(r.state, {})).turns);
    }
    s = r.state;
  }
  return versions;
}

/** Checks sharedTurns against the comparison on every pair, limit and start; returns how many cases. */
function checkPairs(versions: readonly (readonly Turn[])[]): number {
  let cases = 0;
  for (const a of versions)
    for (const b of versions) {
      const n = Math.min(a.length, b.length);
      for (const limit of [0, 1, n - 1, n])
        for (const from of [0, 1, n >> 1, n - 2, n]) {
          if (limit < 0 || from < 0) continue;
          const got = sharedTurns(a, b, limit, from);
          const want = scan(a, b, limit, from);
          // One expect per mismatch only (tens of thousands of cases).
          if (got !== want) expect({ a: a.length, b: b.length, limit, from, got }).toEqual({ a: a.length, b: b.length, limit, from, got: want });
          cases++;
        }
    }
  return cases;
}

describe('sharedTurns', () => {
  it('equals a turn-by-turn comparison for every pair of versions of a short session', () => {
    expect(checkPairs(versionsOf(6))).toBeGreaterThan(1000);
  });

  it('equals it for a session of many turns, whose turns arrays past 16 turns are found through the records', () => {
    // Short turns arrays are not recorded (compared at once); from 17 turns on the edits' records are followed.
    // Pairs across that boundary, branches and folds (of the last turn and of the one before it) included.
    const versions = versionsOf(30);
    expect(versions.some((v) => v.length > 17) && versions.some((v) => v.length < 16)).toBe(true);
    expect(checkPairs(versions)).toBeGreaterThan(50000);
  });
});
