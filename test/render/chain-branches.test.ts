/**
 * The stable stream of a chain of renders that only appended is one array that later renders push onto
 * (src/render/projection.ts). Whatever a render handed out must stay its own, however the caller walks its
 * states: back to any earlier one, two branches from one state in turn, the same request again (a retry).
 * Every render is checked against a from-scratch render of the same state, and every earlier render is read
 * for the first time only at the end (its stream, its state's previous stream and its request are built
 * when read, after the chain went further).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';
import { withoutReuse } from '../helpers/reuse.js';

/** What a render hands out, as text. */
function seen(r: Rendered): string {
  return JSON.stringify({
    stream: r.stream.map((b) => b.path),
    last: r.state.lastRender?.stream.map((b) => b.path),
    params: toAnthropic(r),
    plan: r.plan,
    cachePoints: r.cachePoints,
  });
}

type Step = { from: number; op: 'round' | 'wide' | 'turn' | 'tail' | 'untail' | 'same' };

function replay(steps: readonly Step[], model: string): void {
  const history: TimelineState[] = [startTurn(newSession(model), 'start')];
  // Renders not read yet, with what a from-scratch render of their state showed when they were made.
  const unread: { r: Rendered; expected: string }[] = [];
  let at = 1_700_000_000_000;
  for (const { from, op } of steps) {
    let s = history[from % history.length]!;
    const last = s.turns.at(-1)!.rounds.at(-1);
    const ended = last !== undefined && last.results.length === 0;
    if (op === 'round' || op === 'wide') s = toolRound(ended ? startTurn(s, 'more') : s, op === 'wide' ? 3 : 1, 600 + (at % 1700));
    else if (op === 'turn') s = startTurn(finalAnswer(toolRound(ended ? startTurn(s, 'more') : s)), 'next');
    else if (op === 'tail') s = setTail(s, [{ type: 'text', text: `budget: ${at % 89} left` }]);
    else if (op === 'untail') s = setTail(s, []);
    at += 4000;
    const fresh = render(withoutReuse(s), { now: at });
    const r = render(s, { now: at });
    const expected = seen(fresh);
    // Every other render is read at once, the rest only at the end.
    if (unread.length % 2 === 0) unread.push({ r, expected });
    else expect(seen(r)).toBe(expected);
    history.push(r.state);
  }
  for (const { r, expected } of unread) expect(seen(r)).toBe(expected);
}

describe('render along branching chains', () => {
  it('hands every render its own stream, previous stream and request when the caller goes back to any earlier state', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ from: fc.nat(60), op: fc.constantFrom<Step['op']>('round', 'round', 'wide', 'turn', 'tail', 'untail', 'same') }), {
          minLength: 5,
          maxLength: 30,
        }),
        fc.constantFrom('claude-sonnet-4-6', 'claude-haiku-4-5'),
        (steps, model) => replay(steps, model),
      ),
      { numRuns: 25 },
    );
  });

  it('keeps two branches from one state apart when they are extended in turn, and a retry of either', () => {
    // From state 1: branch A (2), branch B (3), A again (4), B again (5), a retry of A's last request (6), then A (7).
    const steps: Step[] = [
      { from: 0, op: 'round' },
      { from: 1, op: 'round' },
      { from: 1, op: 'wide' },
      { from: 2, op: 'round' },
      { from: 3, op: 'turn' },
      { from: 3, op: 'same' },
      { from: 4, op: 'round' },
      { from: 5, op: 'tail' },
      { from: 6, op: 'wide' },
    ];
    replay(steps, 'claude-sonnet-4-6');
    replay(steps, 'claude-haiku-4-5');
  });
});

describe('what a render hands out', () => {
  it('cannot be changed by the caller where the renderer keeps it (a retry of the same state renders what a fresh render does)', () => {
    const s = toolRound(toolRound(startTurn(newSession(), 'start')));
    const r = render(s, { now: 1000 });
    // Without a tail the stream is the stable blocks the renderer keeps for this state (and its next state's
    // previous stream): a caller that ignores `readonly` must not change what a retry of the same state sends.
    expect(() => (r.stream as unknown[]).pop()).toThrow(TypeError);
    expect(() => (r.state.lastRender!.stream as unknown[]).push(r.stream[0])).toThrow(TypeError);
    // With a tail too (its own array, frozen alike).
    const tailed = render(setTail(s, [{ type: 'text', text: 'budget: 3 left' }]), { now: 1000 });
    expect(tailed.tailStart).toBeLessThan(tailed.stream.length);
    expect(Object.isFrozen(tailed.stream)).toBe(true);
    const retry = render(s, { now: 1000 });
    expect(seen(retry)).toBe(seen(render(withoutReuse(s), { now: 1000 })));
  });
});
