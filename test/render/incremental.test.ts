import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { passContext } from '../../src/render/context.js';
import { stableStream } from '../../src/render/projection.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';

/** The stream built from scratch: the same state without the previous render to reuse. */
function scratch(state: TimelineState): readonly unknown[] {
  const { lastRender: _drop, ...copy } = state;
  return stableStream(copy, passContext(copy, {}));
}

describe('incremental stream building', () => {
  it('gives exactly the stream a from-scratch build gives, across appends, turns, hides and prunes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('round', 'turn', 'answer', 'user', 'hide', 'idle'), { minLength: 5, maxLength: 40 }),
        fc.constantFrom('claude-sonnet-4-6', 'claude-haiku-4-5'),
        (ops, model) => {
          let s = startTurn(newSession(model), 'start');
          let at = 0;
          for (const op of ops) {
            const last = s.turns.at(-1)!.rounds.at(-1);
            const ended = last !== undefined && last.results.length === 0;
            if (op === 'round') s = toolRound(ended ? startTurn(s, 'more') : s, 1 + (at % 3), 500 + (at % 2000));
            else if (op === 'turn') s = startTurn(finalAnswer(toolRound(ended ? startTurn(s, 'more') : s)), 'next');
            // An answer rendered on its own, then a user turn alone: the previous turn object stays the same.
            else if (op === 'answer' && !ended) s = finalAnswer(s);
            else if (op === 'user' && ended) s = startTurn(s, 'a new request');
            else if (op === 'idle') at += 10 * 60_000;
            else if (op === 'hide') {
              const last = s.turns.at(-1)!.rounds.at(-1)?.results[0];
              if (last) s = hideBlock(s, last.path, { now: at, force: true }).state;
            }
            // The edited state still carries the previous render: the build reuses its stream.
            const incremental = stableStream(s, passContext(s, {}));
            const fresh = scratch(s);
            expect(incremental.length).toBe(fresh.length);
            incremental.forEach((b, i) => {
              expect(b).toBe(fresh[i]);
            });
            s = render(s, { now: (at += 5000) }).state;
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
