/**
 * One open turn, a long tool loop (issue 14): the renderer continues the open
 * turn round by round (projection.ts: the rounds before the first one that
 * changed are taken over; cache-points.ts: ③ read from the round starts; the
 * binding fold: render/bind.ts). Every request of a generated single-turn
 * session, rendered incrementally, must equal the render of the same state
 * with nothing to reuse, byte for byte, with hides, prunes (cold and economy)
 * and compactions happening mid-turn, on a model that binds thinking and one
 * that does not, under both policies.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { placeCachePoints } from '../../src/render/cache-points.js';
import { passContext } from '../../src/render/context.js';
import { stableStream, streamLayout } from '../../src/render/projection.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { appendResponse } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { applyEvent } from '../helpers/trace-events.js';
import { figures, withoutReuse } from '../helpers/reuse.js';

const ROUNDS = 160;

/** One user message, then ROUNDS rounds (parallel calls, thinking, a tail before each request, the agent's hides). */
function singleTurn(model: string): TraceEvent[] {
  return generateTrace({
    seed: `open-turn-${model}`,
    profile: 'coding',
    requests: ROUNDS,
    rounds: { median: ROUNDS, min: ROUNDS, max: ROUNDS },
    tail: true,
    hides: true,
    hugeRate: 0,
    model,
  });
}

/**
 * Replays the session, each request rendered and mapped incrementally and from a state with nothing to reuse;
 * every IDLE_EVERY requests the clock jumps 10 minutes (the cache goes cold: prunes). Returns the decision types seen.
 */
function replay(model: string, options: RenderOptions): Set<string> {
  const seen = new Set<string>();
  let state: TimelineState | undefined;
  let shift = 0;
  let now = 0;
  let requests = 0;
  for (const e of singleTurn(model)) {
    if (e.type === 'assistant') {
      if (++requests % 45 === 0) shift += 10 * 60_000;
      const r = render(state!, { ...options, now: now + shift });
      const fresh = render(withoutReuse(state!), { ...options, now: now + shift });
      expect(figures(r)).toEqual(figures(fresh));
      expect(r.stream).toEqual(fresh.stream);
      expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
      // The folded state (binding models) and the decisions applied: the same state for the next request.
      expect(r.state.turns).toEqual(fresh.state.turns);
      expect(r.state.hidden).toEqual(fresh.state.hidden);
      // ③ read from the layout's round starts == found by scanning a plain copy of the same stream.
      const { lastRender: _new, ...rest } = r.state;
      const pre: TimelineState = state!.lastRender ? { ...rest, lastRender: state!.lastRender } : rest;
      const ctx = passContext(pre, { ...options, now: now + shift });
      const stable = stableStream(pre, ctx);
      expect(streamLayout(stable)).toBeDefined();
      expect(placeCachePoints(stable, pre, ctx)).toEqual(placeCachePoints([...stable], pre, ctx));
      for (const d of r.decisions) seen.add(d.type === 'prune' ? `prune:${d.reason}` : d.type);
      state = appendResponse(r.state, e.content as never, e.at + shift);
      now = e.at;
      continue;
    }
    if ('at' in e && typeof e.at === 'number') now = e.at;
    state = applyEvent(state, e, { model, options, now, shift, seen });
  }
  return seen;
}

const small = (model: string) => ({ ...resolveProfile(model), contextWindow: 40_000 });
const large = (model: string) => ({ ...resolveProfile(model), contextWindow: 1_000_000 });

describe('one long open turn: incremental render == render with nothing to reuse', () => {
  for (const model of ['claude-sonnet-4-6', 'claude-sonnet-5-5']) {
    for (const policy of ['conservative', 'economy'] as const) {
      it(`${model}, ${policy}, compacting mid-turn in a 40k window`, () => {
        const seen = replay(model, { profile: small(model), policy });
        // The session went through compactions and prunes inside the open turn, not only appends.
        expect(seen.has('compact')).toBe(true);
        expect([...seen].some((k) => k.startsWith('prune:'))).toBe(true);
        expect([...seen].some((k) => k.startsWith('hide:'))).toBe(true);
      });
      it(`${model}, ${policy}, compaction off (1M window)`, () => {
        const seen = replay(model, { profile: large(model), policy, compact: { enabled: false } });
        expect(seen.has('compact')).toBe(false);
        expect([...seen].some((k) => k.startsWith('hide:'))).toBe(true);
      });
    }
  }
});
