/**
 * The render pipeline. Five passes in a fixed order, every render:
 *   prune → compact → hidden replacements → cache points → tail append.
 * Prune and compact make sticky decisions (they edit the state); the other
 * three are pure functions of that state.
 */
import { freeze } from 'immer';
import { resolveProfile } from '../models/profiles.js';
import { BlockTokenCache } from '../tokens/counter.js';
import type { TimelineState } from '../timeline/types.js';
import { placeCachePoints, firstChange as diffFrom } from './cache-points.js';
import { compact, type SummaryTexts } from './compact.js';
import { hiddenReplacements, type PassContext } from './hide.js';
import { prune } from './prune.js';
import { appendTail } from './tail.js';
import type { Decision, Rendered, RenderOptions, SegmentTokens, StreamBlock } from './types.js';

let sharedTokens: BlockTokenCache | undefined;

/** The process-wide token cache used when no `tokens` option is given. */
export function defaultTokenCache(): BlockTokenCache {
  return (sharedTokens ??= new BlockTokenCache());
}

/** The names of the passes, in the order they run. */
export const PASSES = ['prune', 'compact', 'hide', 'cache-points', 'tail'] as const;

export function passContext(state: TimelineState, options: RenderOptions): PassContext {
  return {
    profile: options.profile ?? resolveProfile(state.model, options.profiles),
    tokens: options.tokens ?? defaultTokenCache(),
    now: options.now ?? Date.now(),
  };
}

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
  const cachePoints = placeCachePoints(stable, next, ctx, options, change);
  const stream = appendTail(stable, next, ctx);

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
  };
  const finalState: TimelineState = freeze(
    {
      ...next,
      lastRender: {
        at: ctx.now,
        stream: stable,
        marked: cachePoints.map((p) => ({ index: p.index, ttl: p.ttl, prefixTokens: p.prefixTokens })),
        turn: rendered.turn,
        round: rendered.round,
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
