import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { customProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { passContext } from '../../src/render/context.js';
import { positions, prefixTokens, stableStream, streamLayout } from '../../src/render/projection.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';
import { figures, withoutReuse } from '../helpers/reuse.js';

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

const small = customProfile('incremental-small', { contextWindow: 16_000, prices: { input: 3 } });

type Op = 'round' | 'wide' | 'turn' | 'answer' | 'user' | 'tail' | 'untail' | 'hide' | 'idle' | 'branch' | 'again';
type Policy = 'conservative' | 'economy';

/**
 * Renders `ops` step by step, each render checked against a from-scratch render and mapping of the same state.
 * Returns the kinds of change the renders went through ('changed', 'tail', and every decision type).
 */
function replayOps(ops: readonly Op[], model: string, compacting: boolean, policy: Policy): Set<string> {
  const seen = new Set<string>();
  const prune = { keepTurns: 1, keepRounds: 2, minChars: 500, reuse: false };
  const options: RenderOptions = compacting ? { profile: { ...small, id: model }, policy, prune } : { policy, prune };
  let s = startTurn(newSession(model), 'start');
  let at = 1_700_000_000_000;
  const history: TimelineState[] = [];
  for (const op of ops) {
    const last = s.turns.at(-1)!.rounds.at(-1);
    const ended = last !== undefined && last.results.length === 0;
    if (op === 'round' || op === 'wide') s = toolRound(ended ? startTurn(s, 'more') : s, op === 'wide' ? 4 : 1, 800 + (at % 4100));
    else if (op === 'turn') s = startTurn(finalAnswer(toolRound(ended ? startTurn(s, 'more') : s)), 'next');
    else if (op === 'answer' && !ended) s = finalAnswer(s);
    // A user message right after tool results: it joins their user message in the request.
    else if (op === 'user' && last && last.results.length > 0) s = startTurn(s, 'and also this');
    else if (op === 'tail') s = setTail(s, [{ type: 'text', text: `budget: ${at % 97} left` }]);
    else if (op === 'untail') s = setTail(s, []);
    else if (op === 'idle') at += 10 * 60_000;
    else if (op === 'hide') {
      const block = s.turns.at(-1)!.rounds.at(-1)?.results[0];
      if (block) s = hideBlock(s, block.path, { ...options, now: at, force: true }).state;
    } else if (op === 'branch' && history.length > 1) s = history[history.length - 2]!;
    else if (op === 'again' && history.length > 0) s = history[history.length - 1]!;
    at += 5000;
    const r = render(s, { ...options, now: at });
    const fresh = render(withoutReuse(s), { ...options, now: at });
    expect(figures(r)).toEqual(figures(fresh));
    // The same blocks (a summary written by this render is a new object in each of the two).
    expect(r.stream).toEqual(fresh.stream);
    // The layout's figures are the ones computed from the stream alone.
    const layout = streamLayout(r.stream)!;
    expect(layout.length).toBe(r.tailStart);
    expect([...layout.positions]).toEqual([...positions(r.stream.slice(0, r.tailStart))]);
    expect([...layout.prefix]).toEqual([...prefixTokens(r.stream.slice(0, r.tailStart))]);
    // Mapped through the chain's messages, and from a plain copy of the stream (every block mapped).
    const params = toAnthropic(r);
    expect(JSON.stringify(params)).toBe(JSON.stringify(toAnthropic({ ...r, stream: [...r.stream] })));
    expect(JSON.stringify(toAnthropic(fresh))).toBe(JSON.stringify(params));
    // An older render of the chain maps the same as before (the chain went further since).
    const older = history.length > 0 ? render(history[history.length - 1]!, { ...options, now: at }) : undefined;
    if (older) expect(JSON.stringify(toAnthropic(older))).toBe(JSON.stringify(toAnthropic({ ...older, stream: [...older.stream] })));
    for (const d of r.decisions) seen.add(d.type);
    if (r.tailStart < r.stream.length) seen.add('tail');
    if (r.firstChange < (r.state.lastRender?.stream.length ?? 0)) seen.add('changed');
    history.push(r.state);
    s = r.state;
  }
  return seen;
}

/**
 * A hand-picked case that goes through every kind of change whatever the random seed: wide rounds fill the small
 * window until a compaction, a tail comes and goes, a hide changes bytes in the editable zone, an idle gap lets the
 * cache go cold so old payloads are pruned, then a branch and a repeat.
 */
const EVERY_CHANGE: [Op[], string, boolean, Policy] = [
  [
    'wide',
    'wide',
    'turn',
    'tail',
    'wide',
    'wide',
    'turn',
    'round',
    'round',
    'round',
    'hide',
    'untail',
    'idle',
    'round',
    'wide',
    'wide',
    'turn',
    'wide',
    'wide',
    'wide',
    'turn',
    'wide',
    'wide',
    'tail',
    'branch',
    'again',
  ],
  'claude-sonnet-4-6',
  true,
  'economy',
];

describe('incremental render and mapping', () => {
  it('render and toAnthropic give what a from-scratch render and mapping give: appends, turns, tails, hides, prunes, compactions, branches', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<Op>('round', 'round', 'wide', 'wide', 'turn', 'answer', 'user', 'tail', 'untail', 'hide', 'idle', 'branch', 'again'), {
          minLength: 10,
          maxLength: 50,
        }),
        fc.constantFrom('claude-sonnet-4-6', 'claude-haiku-4-5'),
        fc.boolean(),
        fc.constantFrom<Policy>('conservative', 'economy'),
        (ops, model, compacting, policy) => {
          for (const kind of replayOps(ops, model, compacting, policy)) seen.add(kind);
        },
      ),
      // The hand-picked case runs first, then 30 random ones (fast-check counts examples in numRuns).
      { numRuns: 31, examples: [EVERY_CHANGE] },
    );
    // The runs went through every kind of change, not only appends (the hand-picked case alone does: next test).
    expect([...seen].sort()).toEqual(expect.arrayContaining(['changed', 'compact', 'prune', 'tail']));
  });

  it('the hand-picked case alone goes through every kind of change (so the coverage above never depends on the seed)', () => {
    expect([...replayOps(...EVERY_CHANGE)].sort()).toEqual(expect.arrayContaining(['changed', 'compact', 'prune', 'tail']));
  });

  it('keeps an earlier render, its state and its request unchanged when later renders extend the chain in place', () => {
    // The stable blocks of a chain live in one array that later renders push onto: everything an earlier
    // render handed out (its stream, its state's previous stream, its request) must still be its own.
    let s = startTurn(newSession(), 'start');
    for (let i = 0; i < 4; i++) s = render(toolRound(s), { now: 1000 * i }).state;
    const tailed = render(setTail(toolRound(s), [{ type: 'text', text: 'budget: 3 left' }]), { now: 5000 });
    const plain = render(toolRound(setTail(tailed.state, [])), { now: 6000 });
    const early = plain.state.lastRender!.stream; // read now: a copy that must not grow later
    const before = [tailed, plain].map((r) => ({
      stream: r.stream.map((b) => b.path),
      last: r.state.lastRender!.stream.map((b) => b.path),
      params: JSON.stringify(toAnthropic(r)),
    }));
    const earlyLength = early.length;
    let t = plain.state;
    for (let i = 0; i < 5; i++) t = render(toolRound(t), { now: 7000 + 1000 * i }).state;
    // Read again after the chain went further, and mapped again (first mapping of the tailed one's copy too).
    [tailed, plain].forEach((r, k) => {
      expect(r.stream.map((b) => b.path)).toEqual(before[k]!.stream);
      expect(r.state.lastRender!.stream.map((b) => b.path)).toEqual(before[k]!.last);
      expect(JSON.stringify(toAnthropic(r))).toBe(before[k]!.params);
    });
    expect(early.length).toBe(earlyLength);
    // A branch from the earlier state renders what a build from scratch renders.
    const branch = toolRound(plain.state, 2);
    const r = render(branch, { now: 20_000 });
    const fresh = render(withoutReuse(branch), { now: 20_000 });
    expect(r.stream).toEqual(fresh.stream);
    expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
    // And the main line goes on from where it was, unaffected by the branch.
    const next = toolRound(t);
    const main = render(next, { now: 30_000 });
    const mainFresh = render(withoutReuse(next), { now: 30_000 });
    expect(JSON.stringify(toAnthropic(main))).toBe(JSON.stringify(toAnthropic(mainFresh)));
  });

  it('hands out requests whose shared messages cannot be written, and fresh copies where the markers are', () => {
    let s = startTurn(newSession(), 'start');
    for (let i = 0; i < 6; i++) s = render(toolRound(s), { now: 1000 * i }).state;
    const r = render(toolRound(s), { now: 10_000 });
    const params = toAnthropic(r);
    const unmarked = params.messages.find((m) => !JSON.stringify(m).includes('cache_control'))!;
    expect(Object.isFrozen(unmarked)).toBe(true);
    expect(() => (unmarked.content as unknown[]).push({ type: 'text', text: 'x' })).toThrow();
    // The next request is not touched by writing this one's array of messages.
    params.messages.length = 0;
    expect(toAnthropic(r).messages.length).toBeGreaterThan(0);
  });

  it("hands out each request's messages as the caller's own array: writing one changes no other request of the chain", () => {
    let s = startTurn(newSession(), 'start');
    for (let i = 0; i < 4; i++) s = render(toolRound(s), { now: 1000 * i }).state;
    const earlier = render(toolRound(s), { now: 10_000 });
    const earlierParams = toAnthropic(earlier);
    const earlierJson = JSON.stringify(earlierParams);
    // The caller writes everything it was handed: the array (push, reorder, cut) and the marked messages' content.
    const written = toAnthropic(earlier);
    const marked = written.messages.find((m) => JSON.stringify(m).includes('cache_control'))!;
    (marked.content as unknown[]).push({ type: 'text', text: 'added by the caller' });
    written.messages.push({ role: 'assistant', content: 'prefill' });
    written.messages.reverse();
    written.messages.splice(1, 2);
    // The same render maps to the same bytes; an array handed out before is unchanged.
    expect(JSON.stringify(toAnthropic(earlier))).toBe(earlierJson);
    expect(JSON.stringify(earlierParams)).toBe(earlierJson);
    // Later renders of the chain (which extend its shared memo in place) equal renders from scratch, and do not
    // reach into the arrays handed out before.
    let t = earlier.state;
    for (let i = 0; i < 4; i++) {
      const next = toolRound(t);
      const r = render(next, { now: 20_000 + 1000 * i });
      const params = toAnthropic(r);
      expect(JSON.stringify(params)).toBe(JSON.stringify(toAnthropic(render(withoutReuse(next), { now: 20_000 + 1000 * i }))));
      params.messages.length = 1;
      t = r.state;
    }
    expect(JSON.stringify(earlierParams)).toBe(earlierJson);
  });
});
