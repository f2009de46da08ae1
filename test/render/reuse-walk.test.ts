import { describe, expect, it } from 'vitest';
import { reuseEstimates, supersededAfter } from '../../src/render/reuse.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession } from '../helpers/build.js';

/** The same state with new turn objects: nothing memoized or walked for it before, so its estimates are computed from scratch. */
function fresh(state: TimelineState): TimelineState {
  return { ...state, turns: state.turns.map((t) => ({ ...t })) };
}

/** A fixed-seed generator (no luck involved: the same session every run). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

const FILES = ['/repo/src/a.ts', '/repo/src/b.ts', '/repo/src/c.ts', '/repo/test/a.test.ts'];

/** One round: a call of a random kind (reads, edits, writes, lookups, runs, recalls of an earlier result) and its result. */
function round(state: TimelineState, n: number, next: () => number, results: string[]): TimelineState {
  const file = FILES[Math.floor(next() * FILES.length)]!;
  const kinds: [string, Record<string, unknown>][] = [
    ['Read', { file_path: file }],
    ['Read', { file_path: file, offset: 10, limit: 20 }],
    ['Edit', { file_path: file, old_string: 'a', new_string: 'b' }],
    ['Write', { file_path: file, content: `v${n}` }],
    ['Grep', { pattern: `p${n % 3}`, path: '/repo/src' }],
    ['Bash', { command: 'npm test' }],
    ['WebFetch', { url: 'https://example.com/doc' }],
  ];
  const id = `toolu_w${n}`;
  const recallable = results.length > 0 && next() < 0.15;
  const [name, input] = recallable ? ['recall', { path: results[Math.floor(next() * results.length)]! }] : kinds[Math.floor(next() * kinds.length)]!;
  let s = appendResponse(state, [{ type: 'tool_use', id, name, input }]);
  s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: `result ${n} of ${name}`, ...(next() < 0.1 ? { is_error: true } : {}) }], []);
  const turn = s.turns.at(-1)!;
  results.push(`turns/${turn.index}/rounds/${turn.rounds.length}/results/${id}`);
  return s;
}

describe('re-use estimates along a session', () => {
  it('continued from the previous state equal a walk from scratch, on every state of the session and on older states asked later', () => {
    const next = lcg(14);
    const results: string[] = [];
    let s = startTurn(newSession(), 'start');
    const states: TimelineState[] = [];
    let n = 0;
    for (let turn = 0; turn < 12; turn++) {
      if (turn > 0) s = startTurn(finalAnswer(s), `turn ${turn + 1}`);
      const rounds = 2 + Math.floor(next() * 6);
      for (let r = 0; r < rounds; r++) {
        s = round(s, n++, next, results);
        states.push(s);
        expect([...reuseEstimates(s)]).toEqual([...reuseEstimates(fresh(s))]);
        for (const after of [0, Math.floor(n / 2), n - 1]) expect([...supersededAfter(s, after)]).toEqual([...supersededAfter(fresh(s), after)]);
      }
    }
    // Older states asked after the session went on, and a branch from one of them, then the main line again.
    for (const old of [states[3]!, states[10]!, states.at(-2)!]) expect([...reuseEstimates(old)]).toEqual([...reuseEstimates(fresh(old))]);
    const branch = round(startTurn(finalAnswer(states[10]!), 'branch'), n++, next, results);
    expect([...reuseEstimates(branch)]).toEqual([...reuseEstimates(fresh(branch))]);
    const main = round(s, n++, next, results);
    expect([...reuseEstimates(main)]).toEqual([...reuseEstimates(fresh(main))]);
    // The session did exercise what the walk carries across turns: superseded payloads and recalls.
    expect(supersededAfter(main, 0).size).toBeGreaterThan(0);
    expect(results.length).toBeGreaterThan(40);
    expect(
      main.turns.flatMap((t) => t.rounds.flatMap((r) => r.response)).filter((b) => b.param.type === 'tool_use' && b.param.name === 'recall').length,
    ).toBeGreaterThan(2);
  });
});

describe('the session walk continued in place', () => {
  it('equals a walk from scratch after jumps of several turns, on older states asked later, and on a branch', () => {
    const next = lcg(99);
    const results: string[] = [];
    let s = startTurn(newSession(), 'start');
    const asked: TimelineState[] = [];
    let n = 0;
    for (let turn = 0; turn < 20; turn++) {
      if (turn > 0) s = startTurn(finalAnswer(s), `turn ${turn + 1}`);
      for (let r = 0; r < 3; r++) s = round(s, n++, next, results);
      // Asked only now and then (as compactions do): the walk moves on over several complete turns at once.
      if (turn % 5 === 4) {
        asked.push(s);
        expect([...reuseEstimates(s)]).toEqual([...reuseEstimates(fresh(s))]);
        expect([...supersededAfter(s, Math.floor(n / 2))]).toEqual([...supersededAfter(fresh(s), Math.floor(n / 2))]);
      }
    }
    // An older state asked again (its memo is per turns array: a new state over the same turns walks),
    // then the main line continued, then a branch from the older one.
    const older = { ...asked[1]! };
    expect([...reuseEstimates({ ...older, turns: [...older.turns] })]).toEqual([...reuseEstimates(fresh(older))]);
    const main = round(startTurn(finalAnswer(s), 'more'), n++, next, results);
    expect([...reuseEstimates(main)]).toEqual([...reuseEstimates(fresh(main))]);
    const branch = round(startTurn(finalAnswer(asked[1]!), 'branch'), n++, next, results);
    expect([...reuseEstimates(branch)]).toEqual([...reuseEstimates(fresh(branch))]);
    const main2 = round(startTurn(finalAnswer(main), 'again'), n++, next, results);
    expect([...reuseEstimates(main2)]).toEqual([...reuseEstimates(fresh(main2))]);
    expect(supersededAfter(main2, 0).size).toBeGreaterThan(0);
  });
});

describe('re-use estimates read by path', () => {
  /** Every path the whole map holds, and a few it does not, asked one by one before the map is iterated. */
  function expectLazyEqualsWhole(lazy: ReadonlyMap<string, unknown>, state: TimelineState): void {
    const whole = [...reuseEstimates(fresh(state))];
    for (const [path, est] of whole) expect(lazy.get(path)).toEqual(est);
    for (const path of ['turns/1/user/0', 'turns/1/rounds/1/results/none', 'nowhere']) expect(lazy.get(path)).toEqual(new Map(whole).get(path));
    expect(lazy.size).toBe(whole.length);
    expect([...lazy]).toEqual(whole);
  }

  it('equal the whole map on every state of a session, on alternative last rounds, and on an older state asked after the walk moved on', () => {
    const next = lcg(7);
    const results: string[] = [];
    let s = startTurn(newSession(), 'start');
    let n = 0;
    const kept: { state: TimelineState; lazy: ReadonlyMap<string, unknown> }[] = [];
    for (let turn = 0; turn < 10; turn++) {
      if (turn > 0) s = startTurn(finalAnswer(s), `turn ${turn + 1}`);
      const rounds = 2 + Math.floor(next() * 5);
      for (let r = 0; r < rounds; r++) {
        s = round(s, n++, next, results);
        // Asked by path first (the session's walk moves to this state, its last turn walked and taken back later).
        const lazy = reuseEstimates(s);
        if (r === 1) kept.push({ state: s, lazy });
        else expectLazyEqualsWhole(lazy, s);
      }
      // Two alternative next rounds of the same open turn, asked in turn: the walk takes one back for the other.
      const a = round(s, n++, next, results);
      const b = round(s, n++, next, results);
      const lazyA = reuseEstimates(a);
      const lazyB = reuseEstimates(b);
      expectLazyEqualsWhole(lazyA, a);
      expectLazyEqualsWhole(lazyB, b);
    }
    // States whose estimates were made while the walk was at them, asked only now (the walk has moved on since).
    for (const { state, lazy } of kept) expectLazyEqualsWhole(lazy, state);
    expect(kept.length).toBe(10);
    expect(supersededAfter(s, 0).size).toBeGreaterThan(0);
  });
});

describe('the session walk over the last turn, round by round', () => {
  it('takes back exactly the rounds a later-asked state does not share, whatever order states of one turn are asked in', () => {
    const next = lcg(21);
    const results: string[] = [];
    let s = startTurn(newSession(), 'start');
    let n = 0;
    for (let r = 0; r < 6; r++) s = round(s, n++, next, results);
    s = startTurn(finalAnswer(s), 'the open turn');
    const byRound: TimelineState[] = [];
    for (let r = 0; r < 6; r++) byRound.push((s = round(s, n++, next, results)));
    const branch = round(byRound[2]!, n++, next, results);
    // A new turns array over the same turn objects: nothing memoized for it, the session's walk moves to it.
    const again = (state: TimelineState): TimelineState => ({ ...state, turns: [...state.turns] });
    for (const state of [byRound[5]!, byRound[1]!, byRound[4]!, branch, byRound[0]!, byRound[5]!, branch, byRound[3]!]) {
      const asked = again(state);
      const lazy = reuseEstimates(asked);
      const whole = [...reuseEstimates(fresh(state))];
      for (const [path, est] of whole) expect(lazy.get(path)).toEqual(est);
      expect([...lazy]).toEqual(whole);
      expect([...supersededAfter(asked, 3)]).toEqual([...supersededAfter(fresh(state), 3)]);
    }
    // The open turn completes (a final answer, a new turn): its rounds stay walked, the next turn is walked on top.
    const done = round(startTurn(finalAnswer(byRound[5]!), 'next'), n++, next, results);
    expect([...reuseEstimates(done)]).toEqual([...reuseEstimates(fresh(done))]);
  });
});
