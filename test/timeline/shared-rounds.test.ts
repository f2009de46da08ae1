/**
 * sharedRounds: the rounds two versions of a turn share, found through the appends' records (a few hops) instead of
 * comparing every round; what the renderer uses to continue a long open turn (render/projection.ts).
 */
import { describe, expect, it } from 'vitest';
import { appendToolResults, sharedRounds } from '../../src/timeline/edit.js';
import type { Round } from '../../src/timeline/types.js';
import { foldSentTail } from '../../src/render/bind.js';
import { passContext } from '../../src/render/context.js';
import { render } from '../../src/render/render.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import { newSession, toolRound } from '../helpers/build.js';

/** The rounds two arrays share, compared one by one. */
function scan(a: readonly Round[], b: readonly Round[], limit: number): number {
  let r = 0;
  while (r < limit && a[r] === b[r]) r++;
  return r;
}

/** Versions of one open turn of `rounds` tool rounds: appends, text-only appends, branches, binding folds. */
function versionsOf(rounds: number): (readonly Round[])[] {
  let s = startTurn(newSession('claude-sonnet-5-5'), 'start');
  const versions: (readonly Round[])[] = [];
  for (let i = 0; i < rounds; i++) {
    s = toolRound(s, 1 + (i % 3), 200);
    versions.push(s.turns.at(-1)!.rounds);
    // Text the runtime injects after the results: the last round replaced again.
    if (i % 4 === 1) {
      s = appendToolResults(s, [], [`note ${i}`]);
      versions.push(s.turns.at(-1)!.rounds);
    }
    // A branch from an older version (its rounds extended another way).
    if (i % 5 === 2) versions.push(toolRound(s, 2, 100).turns.at(-1)!.rounds);
    // The binding fold of a sent tail (render/bind.ts): a round replaced inside the turn.
    s = setTail(s, [{ type: 'text', text: `live ${i}` }]);
    const r = render(s, { now: 1000 * i });
    versions.push(foldSentTail(toolRound(r.state, 1, 50), passContext(r.state, {})).turns.at(-1)!.rounds);
    s = r.state;
  }
  return versions;
}

/** Checks sharedRounds against the comparison on every pair; returns how many pairs. */
function checkPairs(versions: readonly (readonly Round[])[]): number {
  let pairs = 0;
  for (const a of versions)
    for (const b of versions)
      for (const limit of [0, 1, Math.min(a.length, b.length)]) {
        const got = sharedRounds(a, b, limit);
        // One expect per mismatch only (tens of thousands of pairs).
        if (got !== scan(a, b, limit)) expect({ a: a.length, b: b.length, limit, got }).toEqual({ a: a.length, b: b.length, limit, got: scan(a, b, limit) });
        pairs++;
      }
  return pairs;
}

describe('sharedRounds', () => {
  it('equals a round-by-round comparison for every pair of versions of an open turn: appends, text-only appends, branches, folds', () => {
    expect(checkPairs(versionsOf(12))).toBeGreaterThan(1000);
  });

  it('equals it for a long open turn too, whose rounds arrays past 16 rounds are found through the records', () => {
    // Short rounds arrays are not recorded (compared at once); from 17 rounds on the appends' and folds' records are
    // followed. Pairs across that boundary, branches and folds included.
    const versions = versionsOf(40);
    expect(versions.some((v) => v.length > 17) && versions.some((v) => v.length < 16)).toBe(true);
    expect(checkPairs(versions)).toBeGreaterThan(20000);
  });
});
