/**
 * roundsWith (edit.ts), property-style (check18): whatever order a program edits states in (the newest one, an
 * older one again, the same parent twice in a row, a state immer copied with its rounds shared, a cloned and
 * re-frozen state as an import gives), every state handed out keeps exactly what it had, stays deeply frozen, and each
 * child holds its parent's rounds (the same objects) plus the one it added.
 */
import fc from 'fast-check';
import { produce } from 'immer';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/render/render.js';
import { appendResponse, appendRound, appendToolResults, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { deepFrozen, newSession, toolResponse, toolRound } from '../helpers/build.js';

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
    for (const v of Object.values(x)) deepFreeze(v);
    Object.freeze(x);
  }
  return x;
}

const roundsOf = (s: TimelineState) => s.turns.at(-1)!.rounds;
const answers = (response: ReturnType<typeof toolResponse>, tag: string) =>
  response.filter((b) => b.type === 'tool_use').map((b) => ({ type: 'tool_result' as const, tool_use_id: (b as { id: string }).id, content: tag }));

type Op = { kind: 'round' | 'split' | 'fold' | 'immer' | 'import'; from: number };

/** Applies one edit to a state; returns the new states (the last one is the result) and how the rounds changed. */
function apply(op: Op, s: TimelineState, step: number): { states: TimelineState[]; changed: number; grew: boolean } {
  switch (op.kind) {
    case 'round': {
      const response = toolResponse(1);
      return { states: [appendRound(s, response, answers(response, `r${step}`))], changed: -1, grew: true };
    }
    case 'split': {
      const response = toolResponse(2);
      const responded = appendResponse(s, response);
      return { states: [responded, appendToolResults(responded, answers(response, `s${step}`))], changed: -1, grew: true };
    }
    case 'fold': {
      const tailed = setTail(s, [{ type: 'text', text: `live ${step}` }]);
      const rendered = render(tailed, { now: 1000 * step }).state;
      // The render folds the tail the previous render sent into the round that was newest then (render/bind.ts).
      return { states: [tailed, rendered, toolRound(rendered, 1, 30)], changed: -1, grew: true };
    }
    case 'immer':
      // immer shares the unchanged rounds array: two states now hold the same (possibly kept) array.
      return { states: [produce(s, (d) => void (d.pruneNotice = !d.pruneNotice))], changed: -3, grew: false };
    case 'import':
      return { states: [deepFreeze(structuredClone(s))], changed: -3, grew: false };
  }
}

describe('roundsWith, property: old states never change', () => {
  it('any order of edits over any earlier state', () => {
    const base = (() => {
      let s = startTurn(newSession('claude-sonnet-5-5'), 'start');
      for (let i = 0; i < 20; i++) s = toolRound(s, 1, 40);
      return s;
    })();
    const op = fc.record({
      kind: fc.constantFrom<Op['kind']>('round', 'round', 'split', 'fold', 'immer', 'import'),
      // Mostly the newest states (the kept copies), sometimes any older one.
      from: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.nat({ max: 200 })),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 5, maxLength: 40 }), (ops) => {
        const pool: { state: TimelineState; json: string }[] = [{ state: base, json: JSON.stringify(base.turns) }];
        // States an edit may start from (an answered round; the intermediate states are only checked).
        const parents: TimelineState[] = [base];
        ops.forEach((o, step) => {
          const parent = parents[parents.length - 1 - (o.from % parents.length)]!;
          const before = roundsOf(parent);
          const { states, changed, grew } = apply(o, parent, step);
          for (const s of states) pool.push({ state: s, json: JSON.stringify(s.turns) });
          parents.push(states.at(-1)!);
          const after = roundsOf(states.at(-1)!);
          expect(after.length).toBe(before.length + (grew ? 1 : 0));
          expect(Object.isFrozen(after)).toBe(true);
          if (o.kind === 'import') expect(after).toEqual(before);
          else {
            // Every round of the parent is in the child, the same object, but the one the edit answered and (a render)
            // the one a sent tail was folded into.
            const other = before.filter((r, i) => after[i] !== r).length;
            expect(other).toBeLessThanOrEqual((changed === -1 ? 1 : 0) + (o.kind === 'fold' ? 1 : 0));
          }
        });
        for (const { state, json } of pool) {
          expect(JSON.stringify(state.turns)).toBe(json);
          expect(deepFrozen(state.turns)).toBe(true);
        }
      }),
      { numRuns: 60 },
    );
  });
});
