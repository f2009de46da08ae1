import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { customProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';
import { figures, withoutReuse } from '../helpers/reuse.js';

const small = customProfile('alias-small', { contextWindow: 16_000, prices: { input: 3 } });

type Op = 'round' | 'wide' | 'turn' | 'answer' | 'tail' | 'untail' | 'hideOld' | 'hideLast' | 'idle' | 'far' | 'again' | 'mutate' | 'other' | 'twice';

interface Sess {
  s: TimelineState;
  history: TimelineState[];
}

function step(x: Sess, op: Op, pick: number, at: number, options: RenderOptions): void {
  let s = x.s;
  const last = s.turns.at(-1)!.rounds.at(-1);
  const ended = last !== undefined && last.results.length === 0;
  if (op === 'round' || op === 'wide') s = toolRound(ended ? startTurn(s, 'more') : s, op === 'wide' ? 4 : 1, 800 + (at % 4100));
  else if (op === 'turn') s = startTurn(finalAnswer(toolRound(ended ? startTurn(s, 'more') : s)), 'next');
  else if (op === 'answer' && !ended) s = finalAnswer(s);
  else if (op === 'tail') s = setTail(s, [{ type: 'text', text: `budget: ${at % 97} left` }]);
  else if (op === 'untail') s = setTail(s, []);
  else if (op === 'hideOld' || op === 'hideLast') {
    const results = s.turns.flatMap((t) => t.rounds.flatMap((r) => r.results)).filter((b) => !s.hidden[b.path]);
    const block = op === 'hideLast' ? results.at(-1) : results[pick % Math.max(1, results.length)];
    if (block) {
      try {
        s = hideBlock(s, block.path, { ...options, now: at, force: true }).state;
      } catch {
        // A block a compaction took: not hideable any more.
      }
    }
  } else if (op === 'far' && x.history.length > 1) s = x.history[pick % x.history.length]!;
  else if (op === 'again' && x.history.length > 0) s = x.history[x.history.length - 1]!;
  x.s = s;
}

/** Kinds of change the renders went through. */
const seen = new Set<string>();

function check(x: Sess, options: RenderOptions, at: number, mutate: boolean): void {
  const s = x.s;
  const r = render(s, { ...options, now: at });
  const fresh = render(withoutReuse(s), { ...options, now: at });
  for (const d of r.decisions) seen.add(d.type);
  if (r.firstChange < (s.lastRender?.stream.length ?? 0)) seen.add('changed');
  expect(figures(r)).toEqual(figures(fresh));
  expect(r.stream).toEqual(fresh.stream);
  const params = toAnthropic(r);
  const json = JSON.stringify(toAnthropic(fresh));
  expect(JSON.stringify(params)).toBe(json);
  if (mutate) {
    // The caller writes what it may write: the arrays and the marked (own) messages.
    params.messages.push({ role: 'user', content: 'x' });
    for (const m of params.messages)
      if (!Object.isFrozen(m) && Array.isArray(m.content) && !Object.isFrozen(m.content)) m.content.push({ type: 'text', text: 'y' });
    if (Array.isArray(params.system)) params.system.push({ type: 'text', text: 'z' });
    (params.tools as unknown[] | undefined)?.push({ name: 'w', input_schema: { type: 'object' } });
    params.messages.reverse();
  }
  // Rendering and mapping the same state a second time gives the same bytes.
  expect(JSON.stringify(toAnthropic(render(s, { ...options, now: at })))).toBe(json);
  x.history.push(r.state);
  x.s = r.state;
}

/**
 * What test/render/incremental.test.ts does not reach: hides of results in older turns (the projection then reuses the
 * stream up to the changed turn, and the mapper takes over its parent chain's messages below the change), renders of a
 * state far back in the history, a caller that writes the arrays and own messages it was handed, a second session
 * rendered in between, and the same state rendered twice.
 */
describe('renders along chains: older turns hidden, far branches, caller writes, two sessions', () => {
  it('every render and mapping equals a from-scratch render and mapping of the same state (fixed seed)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom<Op>(
              'round',
              'round',
              'wide',
              'turn',
              'answer',
              'tail',
              'untail',
              'hideOld',
              'hideLast',
              'idle',
              'far',
              'again',
              'mutate',
              'other',
              'twice',
            ),
            fc.nat(1000),
          ),
          { minLength: 10, maxLength: 45 },
        ),
        fc.boolean(),
        fc.constantFrom('conservative', 'economy'),
        (ops, compacting, policy) => {
          const prune = { keepTurns: 1, keepRounds: 2, minChars: 500, reuse: false };
          const options: RenderOptions = compacting ? { profile: small, policy: policy as 'economy', prune } : { policy: policy as 'economy', prune };
          const a: Sess = { s: startTurn(newSession(), 'start'), history: [] };
          const b: Sess = { s: startTurn(newSession(), 'other start'), history: [] };
          let at = 1_700_000_000_000;
          let mutate = false;
          for (const [op, pick] of ops) {
            at += 5000;
            if (op === 'idle') at += 10 * 60_000;
            if (op === 'mutate') mutate = !mutate;
            if (op === 'other') {
              step(b, 'round', pick, at, options);
              check(b, options, at, mutate);
              continue;
            }
            step(a, op, pick, at, options);
            check(a, options, at, mutate);
            if (op === 'twice') check(a, options, at, mutate);
          }
        },
      ),
      { numRuns: 40, seed: 2026 },
    );
    // The runs went through changes, not only appends (fixed seed: the same runs every time).
    expect([...seen]).toEqual(expect.arrayContaining(['changed', 'prune', 'compact']));
  });
});
