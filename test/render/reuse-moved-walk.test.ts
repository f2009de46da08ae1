/**
 * A state's re-use estimates asked after the session's walk moved on (render/reuse.ts): the state is walked
 * afresh once, and every later path it is asked about is read from that walk, not from yet another walk of
 * the whole session (a prune asks one path per candidate: hundreds on a cold window).
 */
import { describe, expect, it } from 'vitest';
import { reuseEstimates } from '../../src/render/reuse.js';
import { appendResponse, appendToolResults, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState, Turn } from '../../src/timeline/types.js';
import { finalAnswer, newSession } from '../helpers/build.js';

function read(state: TimelineState, n: number): TimelineState {
  const id = `toolu_m${n}`;
  const s = appendResponse(state, [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/repo/src/f${n}.ts` } }]);
  return appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content: `text of f${n}` }], []);
}

/** The state with turn objects that count how often their rounds are read (a walk reads each turn's once). */
function counted(state: TimelineState, reads: { n: number }): TimelineState {
  const turns = state.turns.map((t) => {
    const copy = { ...t } as Turn;
    const rounds = t.rounds;
    Object.defineProperty(copy, 'rounds', {
      enumerable: true,
      get: () => {
        reads.n++;
        return rounds;
      },
    });
    return Object.freeze(copy);
  });
  return Object.freeze({ ...state, turns: Object.freeze(turns) });
}

describe('estimates of an older state after the walk moved on', () => {
  it('walk the state once, however many paths are asked', () => {
    let s = startTurn(newSession(), 'start');
    const paths: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      if (turn > 0) s = startTurn(finalAnswer(s), `turn ${turn + 1}`);
      for (let r = 0; r < 5; r++) {
        s = read(s, paths.length);
        const t = s.turns.at(-1)!;
        paths.push(`turns/${t.index}/rounds/${t.rounds.length}/results/toolu_m${paths.length}`);
      }
    }
    const reads = { n: 0 };
    const old = counted(s, reads);
    expect(reuseEstimates(old).get(paths[0]!)?.file).toBe(true);
    // The session goes on from it: the walk moves to the newer state.
    const newer = read(startTurn(finalAnswer(old), 'more'), 99);
    expect(reuseEstimates(newer).get(paths[1]!)?.file).toBe(true);
    reads.n = 0;
    for (const p of paths.slice(2)) expect(reuseEstimates(old).get(p)?.file).toBe(true);
    // One fresh walk of the old state's three turns, not one per path asked.
    expect(reads.n).toBe(3);
  });
});
