/**
 * The re-use estimates are memoized per state's turns for the last few states asked (reuse.ts `memo`, a bounded
 * memo held strongly instead of a WeakMap whose values, holding their keys, the scavenger kept alive): the same
 * turns asked again while held get the same estimates object; other turns (another branch, or turns asked again
 * after many others) get their own estimates, equal to a computation from scratch.
 */
import { describe, expect, it } from 'vitest';
import { reuseEstimates } from '../../src/render/reuse.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { newSession } from '../helpers/build.js';

/** The same state with new turn objects: nothing memoized or walked for it before. */
function fresh(state: TimelineState): TimelineState {
  return { ...state, turns: state.turns.map((t) => ({ ...t })) };
}

/** A round reading `file` (its result names the round), or writing it. */
function round(state: TimelineState, n: number, file: string, write = false): TimelineState {
  const id = `toolu_m${n}`;
  const [name, input] = write ? ['Write', { file_path: file, content: `v${n}` }] : ['Read', { file_path: file }];
  const s = appendResponse(state, [{ type: 'tool_use', id, name, input }]);
  return appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: `result ${n} of ${name} ${file}` }], []);
}

describe('reuseEstimates per state', () => {
  it('gives the same turns asked again the same estimates, and each branch its own', () => {
    let base = startTurn(newSession(), 'start');
    for (let i = 0; i < 6; i++) base = round(base, i, `/repo/f${i % 3}.ts`);
    // Two branches: one re-reads a file (its earlier read is superseded), one writes it.
    const a = round(base, 100, '/repo/f0.ts');
    const b = round(base, 101, '/repo/f0.ts', true);
    const first = reuseEstimates(a);
    const fromB = reuseEstimates(b);
    expect(reuseEstimates(a)).toBe(first);
    expect(reuseEstimates(b)).toBe(fromB);
    expect([...reuseEstimates(a)]).toEqual([...reuseEstimates(fresh(a))]);
    expect([...reuseEstimates(b)]).toEqual([...reuseEstimates(fresh(b))]);
    expect([...reuseEstimates(a)]).not.toEqual([...reuseEstimates(b)]);
  });

  it('gives turns asked again after many others the estimates a computation from scratch gives', () => {
    let s = startTurn(newSession(), 'start');
    s = round(s, 0, '/repo/a.ts');
    const early = s;
    const expected = [...reuseEstimates(fresh(early))];
    reuseEstimates(early);
    for (let i = 1; i < 25; i++) {
      s = round(s, i, `/repo/${'abc'[i % 3]}.ts`, i % 5 === 0);
      reuseEstimates(s);
    }
    expect([...reuseEstimates(early)]).toEqual(expected);
    expect([...reuseEstimates(s)]).toEqual([...reuseEstimates(fresh(s))]);
  });
});
