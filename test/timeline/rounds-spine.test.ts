/**
 * roundsWith (edit.ts): the appends, the tool results and the render's fold of a sent tail write a long open turn's
 * rounds through a plain copy the module keeps of each chain's newest rounds array, and hand out frozen exact
 * copies. Every state keeps exactly the rounds it had when it was made, whatever is appended after it, to it
 * again (a branch), to other chains (more than the module keeps copies of) or folded by the render; and each new
 * state holds its parent's rounds (the same objects) and the one it added or replaced.
 */
import { describe, expect, it } from 'vitest';
import { foldSentTail } from '../../src/render/bind.js';
import { passContext } from '../../src/render/context.js';
import { render } from '../../src/render/render.js';
import { appendResponse, appendRound, appendToolResults, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { deepFrozen, newSession, toolResponse, toolRound } from '../helpers/build.js';

interface Seen {
  readonly state: TimelineState;
  readonly json: string;
}

const roundsOf = (s: TimelineState) => s.turns.at(-1)!.rounds;

/** Checks a new state against its parent: the parent's rounds kept (the same objects) but at `changed`, one round more when `grew`. */
function checkChild(parent: TimelineState, child: TimelineState, changed: number, grew: boolean): void {
  const a = roundsOf(parent);
  const b = roundsOf(child);
  expect(b.length).toBe(a.length + (grew ? 1 : 0));
  for (let i = 0; i < a.length; i++) if (i !== changed && a[i] !== b[i]) expect({ round: i, same: false }).toEqual({ round: i, same: true });
  expect(Object.isFrozen(b)).toBe(true);
}

describe('roundsWith: a long open turn edited through the kept copy', () => {
  it('leaves every earlier state as it was: appends, results, fused rounds, folds, branches, more chains than copies kept', () => {
    const seen: Seen[] = [];
    const keep = (s: TimelineState) => {
      seen.push({ state: s, json: JSON.stringify(s.turns) });
      return s;
    };
    // Six chains (the module keeps copies for four) edited in turn, each a long open turn on a model that binds
    // thinking with a tail before each request, so the render folds the sent tail into a round inside the turn.
    let folds = 0;
    const chains = Array.from({ length: 6 }, () => keep(startTurn(newSession('claude-sonnet-5-5'), 'start')));
    for (let i = 0; i < 40; i++) {
      for (let c = 0; c < chains.length; c++) {
        // Chains 0 and 1 every step, the others every third: copies kept, lost and taken again.
        if (c > 1 && i % 3 !== c % 3) continue;
        let s = chains[c]!;
        const before = s;
        if (i % 2 === 0) {
          const response = toolResponse(1 + (i % 2));
          const responded = keep(appendResponse(s, response));
          checkChild(s, responded, -1, true);
          const calls = response.filter((b) => b.type === 'tool_use');
          s = keep(
            appendToolResults(
              responded,
              calls.map((b) => ({ type: 'tool_result' as const, tool_use_id: (b as { id: string }).id, content: `r${i}` })),
            ),
          );
          checkChild(responded, s, roundsOf(s).length - 1, false);
        } else {
          const response = toolResponse(2);
          const calls = response.filter((b) => b.type === 'tool_use');
          s = keep(
            appendRound(
              s,
              response,
              calls.map((b) => ({ type: 'tool_result' as const, tool_use_id: (b as { id: string }).id, content: `f${i}` })),
            ),
          );
          checkChild(before, s, -1, true);
        }
        // A branch from an older state of this chain (its array is no chain's newest any more).
        if (i % 5 === 3) {
          const old = seen[seen.length - 4]!.state;
          if (old.turns.length > 0 && old.turns.at(-1)!.rounds.at(-1)?.open.length === 0) checkChild(old, keep(toolRound(old, 1, 40)), -1, true);
        }
        // The tail, the render and its fold of the sent tail into the round before the last.
        s = keep(setTail(s, [{ type: 'text', text: `live ${c}/${i}` }]));
        const r = render(s, { now: 1000 * i });
        keep(r.state);
        const grown = keep(toolRound(r.state, 1, 30));
        const folded = keep(foldSentTail(grown, passContext(grown, {})));
        if (folded !== grown) {
          checkChild(grown, folded, roundsOf(grown).length - 2, false);
          folds++;
        }
        chains[c] = folded;
      }
    }
    expect(Math.max(...chains.map((s) => roundsOf(s).length))).toBeGreaterThan(40);
    expect(folds).toBeGreaterThan(100);
    for (const { state, json } of seen) {
      expect(JSON.stringify(state.turns)).toBe(json);
      expect(deepFrozen(state.turns)).toBe(true);
    }
  });
});
