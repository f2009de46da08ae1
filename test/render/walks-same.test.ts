/**
 * The re-use walk (src/render/reuse.ts) continues over a round that only gained text after its tool results (what
 * the fold of a sent tail makes on a model that binds thinking, render/bind.ts): it walks the same, so nothing is
 * taken back; a round whose response or tool results changed is taken back and walked again. Either way the
 * estimates and the duplicates' indexes equal a walk from scratch.
 */
import { describe, expect, it } from 'vitest';
import { resultIndex, reuseEstimates, walksSame } from '../../src/render/reuse.js';
import type { Block, Round, TimelineState, Turn } from '../../src/timeline/types.js';
import { newSession, toolRound } from '../helpers/build.js';
import { startTurn } from '../../src/timeline/edit.js';

/** The same state with new turn objects and user messages: nothing walked for it before (its own walk slot). */
function fresh(state: TimelineState): TimelineState {
  return { ...state, turns: state.turns.map((t) => ({ ...t, user: [...t.user], rounds: t.rounds.map((r) => ({ ...r })) })) };
}

/** The state with round `r` (0-based) of its last turn replaced by `round` (new turn and arrays, as an edit makes). */
function withRound(state: TimelineState, r: number, round: Round): TimelineState {
  const turn = state.turns.at(-1)!;
  const rounds = [...turn.rounds];
  rounds[r] = round;
  const next: Turn = { ...turn, rounds };
  return { ...state, turns: [...state.turns.slice(0, -1), next] };
}

const injected = (path: string, text: string): Block => ({ id: path, path, param: { type: 'text', text } });

/** The walk's figures a reader sees: estimates and the duplicates' indexes (paths, in order). */
function figures(state: TimelineState) {
  const index = resultIndex(state);
  const paths = (m: ReadonlyMap<string, readonly Block[]>) => [...m].map(([k, list]) => [k, list.map((b) => b.path)]);
  return { estimates: [...reuseEstimates(state)], byContent: paths(index.byContent), byFile: paths(index.byFile) };
}

describe('walksSame', () => {
  it('is true for a round that only gained text after its tool results, false when its response or tool results differ', () => {
    let s = startTurn(newSession(), 'fix it');
    for (let i = 0; i < 3; i++) s = toolRound(s, 2);
    const round = s.turns.at(-1)!.rounds[1]!;
    const folded: Round = { ...round, results: [...round.results, injected('turns/1/rounds/2/injected/0', 'tail as sent')] };
    expect(walksSame(folded, round)).toBe(true);
    expect(walksSame(round, folded)).toBe(true);
    // One tool result fewer, or another object in its place, or another response: walked again.
    expect(walksSame({ ...round, results: round.results.slice(0, 1) }, round)).toBe(false);
    expect(walksSame({ ...round, results: [round.results[1]!, round.results[0]!] }, round)).toBe(false);
    expect(walksSame({ ...round, results: [{ ...round.results[0]! }, round.results[1]!] }, round)).toBe(false);
    expect(walksSame({ ...round, response: [...round.response] }, round)).toBe(false);
  });

  it('the walk continues over a folded round without taking it back, and equals a walk from scratch', () => {
    let s = startTurn(newSession(), 'fix it');
    for (let i = 0; i < 5; i++) s = toolRound(s, 2);
    expect(figures(s)).toEqual(figures(fresh(s)));
    const before = resultIndex(s).rollbacks;
    const round = s.turns.at(-1)!.rounds[3]!;
    const folded = withRound(s, 3, { ...round, results: [...round.results, injected('turns/1/rounds/4/injected/0', 'tail')] });
    expect(figures(folded)).toEqual(figures(fresh(folded)));
    expect(resultIndex(folded).rollbacks).toBe(before);
    // A changed tool result in that round: taken back and walked again, still equal to a walk from scratch.
    const changed = withRound(folded, 3, { ...round, results: [round.results[0]!] });
    expect(figures(changed)).toEqual(figures(fresh(changed)));
    expect(resultIndex(changed).rollbacks).toBe(before + 1);
  });
});
