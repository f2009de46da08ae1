/**
 * The render pipeline. Five passes in a fixed order, every render:
 *   prune → compact → hidden replacements → cache points → tail append.
 * Prune and compact make sticky decisions (they edit the state); the other
 * three are pure functions of that state.
 */
import { freeze } from 'immer';
import type { TimelineState } from '../timeline/types.js';
import { placeCachePoints, firstChange as diffFrom } from './cache-points.js';
import { planRequest, validEntries } from './plan.js';
import { compact, type SummaryTexts } from './compact.js';
import { passContext } from './context.js';
import { hiddenReplacements } from './hide.js';
import { prune } from './prune.js';
import { appendTail } from './tail.js';
import type { Decision, Rendered, RenderOptions, SegmentTokens, StreamBlock } from './types.js';

/** The names of the passes, in the order they run. */
export const PASSES = ['prune', 'compact', 'hide', 'cache-points', 'tail'] as const;

/**
 * Renders the request for the next model call.
 *
 * @returns the block stream with its cache points, token counts, the decisions
 *   made, and `state`: the state with those decisions applied (keep it).
 * @example
 * const r = render(state, { now: Date.now() });
 * const params = toAnthropic(r, { max_tokens: 4096 });
 * const message = await client.messages.create(params);
 * state = appendResponse(r.state, message);
 */
export function render(state: TimelineState, options: RenderOptions = {}, summaries?: SummaryTexts): Rendered {
  const ctx = passContext(state, options);
  const decisions: Decision[] = [];

  const pruned = prune(state, ctx, options);
  decisions.push(...pruned.decisions);
  const compacted = compact(pruned.state, ctx, options, summaries);
  decisions.push(...compacted.decisions);
  const next = compacted.state;

  const stable = hiddenReplacements(next, ctx);
  const change = diffFrom(stable, next.lastRender);
  const entries = validEntries(next.lastRender, stable, change, ctx.now);
  const cachePoints = placeCachePoints(stable, next, ctx, options, entries);
  const stream = appendTail(stable, next, ctx);
  const { plan, entries: ledger } = planRequest(stream, stable.length, cachePoints, entries, ctx.profile, ctx.now, change, next.lastRender);

  const turn = next.turns.at(-1);
  const rendered: Omit<Rendered, 'state'> = {
    model: ctx.profile.id,
    stream,
    tailStart: stable.length,
    cachePoints,
    tokens: segmentTokens(stream),
    decisions,
    turn: turn?.index ?? 0,
    round: (turn?.rounds.length ?? 0) + 1,
    at: ctx.now,
    firstChange: change,
    plan,
  };
  const finalState: TimelineState = freeze(
    {
      ...next,
      lastRender: {
        at: ctx.now,
        stream: stable,
        entries: ledger,
        turn: rendered.turn,
        round: rendered.round,
        requests: (next.lastRender?.requests ?? 0) + 1,
      },
    },
    false,
  );
  return { ...rendered, state: finalState };
}

function segmentTokens(stream: readonly StreamBlock[]): SegmentTokens {
  let envelope = 0;
  let timeline = 0;
  let tail = 0;
  for (const b of stream) {
    if (b.segment === 'envelope') envelope += b.tokens;
    else if (b.segment === 'tail') tail += b.tokens;
    else timeline += b.tokens;
  }
  return { envelope, timeline, tail, total: envelope + timeline + tail };
}
