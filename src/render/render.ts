/**
 * `render()` and `renderAsync()`: resolve the pass context once (options
 * validated, clock read), run the five passes of pipeline.ts, then plan the
 * request (which point reads, which write, predicted usage and cost) and
 * remember this render in the state for the next one.
 */
import { stateWith } from '../timeline/hidden.js';
import { withTimeout } from '../internal/timeout.js';
import { toAnthropic } from '../providers/anthropic.js';
import { extractiveSummarizer } from '../summarize/index.js';
import type { SummaryOutput } from '../summarize/types.js';
import type { TimelineState } from '../timeline/types.js';
import { foldSentTail, lostPrice } from './bind.js';
import { planCompaction } from './compact.js';
import { contextOf, passContext, type PassContext, type RenderWork } from './context.js';
import { PASSES, runPasses } from './pipeline.js';
import { planRequest } from './plan.js';
import {
  cacheStanding,
  partsLayout,
  partsOf,
  type StreamParts,
  streamParts,
  supersededView,
  undoneView,
  withLazyStream,
  withStableStream,
} from './projection.js';
import { prune } from './prune.js';
import type { Decision, Rendered, RenderOptions, RenderPlan, SegmentTokens, ThinkingLost } from './types.js';
import type { ModelProfile } from '../models/profiles.js';
import type { ResolvedRenderOptions } from './options.js';

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
export function render(state: TimelineState, options: RenderOptions = {}): Rendered {
  return renderWith(state, passContext(state, options));
}

/**
 * {@link render} from options already resolved and the profile already found: `prepare`, which resolves them once
 * for a conversation's option values (validating them on every request cost ~0.7 µs of its own ~9). @internal
 */
export function renderResolved(state: TimelineState, options: ResolvedRenderOptions, profile: ModelProfile): Rendered {
  return renderWith(state, { profile, tokens: options.tokens, now: options.now, options });
}

/** The pipeline on a resolved context (options validated, clock read: once per render). */
function renderWith(state: TimelineState, ctx: PassContext): Rendered {
  return finish(runPasses(PASSES, foldSentTail(state, ctx), ctx), ctx);
}

/** The plan with the thinking this request leaves out for preserved thinking (its `binding` decisions), if any. */
function withThinkingLost(plan: RenderPlan, decisions: readonly Decision[], ctx: PassContext): RenderPlan {
  if (!ctx.profile.bindsThinking) return plan;
  const thinkingLost = thinkingLostOf(decisions, ctx.profile);
  return thinkingLost ? { ...plan, thinkingLost } : plan;
}

/** What the `binding` decisions leave out, priced (undefined when none). Also `prepare`'s, for the thinking it leaves out itself. */
export function thinkingLostOf(decisions: readonly Decision[], profile: ModelProfile): ThinkingLost | undefined {
  let blocks = 0;
  let tokens = 0;
  for (const d of decisions) {
    if (d.type !== 'prune' || d.reason !== 'binding') continue;
    blocks++;
    tokens += d.tokensRemoved;
  }
  return blocks === 0 ? undefined : lostPrice(blocks, tokens, profile);
}

/** The plan of the request the passes built, and the state that remembers this render. */
function finish(work: RenderWork, ctx: PassContext): Rendered {
  const { state: next, tailStart, cachePoints, decisions } = work;
  // The stream as its stable part and the tail (the tail pass keeps them apart; reading `work.stream`
  // would build the whole array, see withLazyStream).
  const parts = streamParts(work) ?? partsOf(work.stream, []);
  // The stable part is the hide pass's stream (placement marks it, the tail pass appends to a copy).
  const standing = cacheStanding(next, ctx);
  const { stream: stable, change, entries, boundary } = standing;
  // A compaction supersedes entries the provider still holds: kept as the other view for the next render (an edit
  // or cut back into the summarised stretch undoes the compaction and re-sends their bytes).
  // An earlier compaction's view, carried on, gives way to this one's.
  // So does a lost state's hint: the entries of decisions it no longer has, for a request that makes one again.
  const compacted =
    (decisions.some((d) => d.type === 'compact') ? supersededView(next.lastRender, change, ctx.now) : undefined) ??
    undoneView(next.lastRender, change, ctx.now);
  const otherView = standing.otherView?.superseded ? (compacted ?? standing.otherView) : (standing.otherView ?? compacted);
  const { plan: planned, entries: ledger } = planRequest({
    stream: parts.stable,
    ...(parts.tail.length > 0 ? { tail: parts.tail } : {}),
    stableLength: tailStart,
    points: cachePoints,
    entries,
    profile: ctx.profile,
    now: ctx.now,
    change,
    prev: next.lastRender,
    model: next.model,
  });

  const plan = withThinkingLost(planned, decisions, ctx);
  const turn = next.turns.at(-1);
  const finalState: TimelineState = stateWith(next, {
    lastRender: withStableStream(
      {
        at: ctx.now,
        model: next.model,
        stream: stable,
        entries: ledger,
        turn: turn?.index ?? 0,
        round: (turn?.rounds.length ?? 0) + 1,
        requests: (next.lastRender?.requests ?? 0) + 1,
        idleGaps: (next.lastRender?.idleGaps ?? 0) + (next.lastRender && ctx.now - next.lastRender.at >= ctx.profile.ttlMs['5m'] ? 1 : 0),
        // Models that bind thinking: the tail this request sends, kept in the history once answered (render/bind.ts).
        ...(ctx.profile.bindsThinking ? { tail: Object.freeze(parts.tail.slice()) } : {}),
        // Models that do not keep thinking: where the API starts keeping it in this request (projection.ts stripBoundary).
        ...(boundary === undefined ? {} : { stripBoundary: boundary }),
        // Entries this request cannot read that a later one stripping other thinking may (projection.ts entriesAndView).
        ...(otherView ? { otherView } : {}),
      },
      stable,
    ),
  });
  const fields: Rendered = {
    model: next.model,
    profile: ctx.profile,
    stream: parts.stable,
    tailStart,
    cachePoints,
    tokens: segmentTokens(parts, tailStart),
    decisions,
    turn: turn?.index ?? 0,
    round: (turn?.rounds.length ?? 0) + 1,
    at: ctx.now,
    firstChange: change,
    plan,
    state: finalState,
  };
  // `stream` (same place among the keys) is built when read: the stable array is the chain's, which
  // later renders extend in place.
  return withLazyStream(fields, parts);
}

function segmentTokens(parts: StreamParts, stableLength: number): SegmentTokens {
  const { stable: stream, tail } = parts;
  let envelope = 0;
  let timeline = 0;
  let tailTokens = 0;
  // The stable part from its layout: envelope first, then timeline. Differences of prefix sums equal
  // the loop's sums only when every count is an integer (always, with the built-in counters).
  const layout = partsLayout(parts);
  let from = 0;
  if (layout?.integral && layout.length === stableLength && stableLength > 0) {
    envelope = layout.envelopeEnd >= 0 ? layout.prefix[layout.envelopeEnd]! : 0;
    timeline = layout.prefix[stableLength - 1]! - envelope;
    from = stableLength;
  }
  for (let i = from; i < parts.stableLength + tail.length; i++) {
    const b = i < parts.stableLength ? stream[i]! : tail[i - parts.stableLength]!;
    if (b.segment === 'envelope') envelope += b.tokens;
    else if (b.segment === 'tail') tailTokens += b.tokens;
    else timeline += b.tokens;
  }
  return { envelope, timeline, tail: tailTokens, total: envelope + timeline + tailTokens };
}

/**
 * Renders like {@link render}, but awaits an asynchronous summarizer (an LLM)
 * when compaction triggers. A summarizer that fails, answers empty or takes
 * longer than `summarizerTimeoutMs` is replaced by the deterministic extractive
 * one: the ceiling still holds and nothing is lost.
 *
 * @example
 * const r = await renderAsync(state, { summarizer: llmSummarizer({ client }) });
 */
export async function renderAsync(state: TimelineState, options: RenderOptions = {}): Promise<Rendered> {
  // One clock read for the whole render: the window must not go cold while the summarizer runs,
  // or the render after the await would plan a different compaction than the one summarized.
  const ctx = passContext(state, options);
  const summarizer = ctx.options.summarizer;
  const pruned = prune(foldSentTail(state, ctx), ctx).state;
  const plan = planCompaction(pruned, ctx);
  if (!plan || !summarizer) return renderWith(state, ctx);
  const fallback = extractiveSummarizer();
  const warmPrefix = warmPrefixOf(pruned, ctx.now);
  const input = warmPrefix ? { ...plan.input, warmPrefix } : plan.input;
  const controller = new AbortController();
  const timeoutMs = ctx.options.summarizerTimeoutMs;
  let out: SummaryOutput;
  try {
    const answer = Promise.resolve(summarizer.summarize(input, controller.signal));
    out = await withTimeout(answer, timeoutMs, `no answer within ${timeoutMs} ms`);
    if (!out.text.trim()) throw new Error('empty summary');
  } catch (err) {
    controller.abort();
    const base = fallback.summarize(plan.input) as SummaryOutput;
    out = { ...base, fallback: `${summarizer.name} failed: ${err instanceof Error ? err.message : String(err)}` };
  }
  return renderWith(state, contextOf(state, ctx.options, new Map([[plan.key, out]])));
}

/**
 * The previous request's bytes up to its newest entry still warm, with a
 * marker there: what a summarizer can send to read the history from cache.
 */
function warmPrefixOf(state: TimelineState, now: number) {
  const prev = state.lastRender;
  if (!prev) return undefined;
  const live = prev.entries.filter((e) => e.expiresAt > now);
  const last = live.at(-1);
  if (!last) return undefined;
  const stream = prev.stream.slice(0, last.index + 1);
  let seen5m = false;
  // Longer TTLs must come first: a 1h entry after a 5m one is marked 5m (the marker's TTL does not change the key).
  const points = live.slice(-4).map((e) => {
    const ttl = seen5m ? '5m' : e.ttl;
    if (ttl === '5m') seen5m = true;
    return { ...e, ttl };
  });
  return toAnthropic({
    model: state.model,
    stream,
    tailStart: stream.length,
    cachePoints: points.map((e) => ({ labels: [4], index: e.index, path: e.path, ttl: e.ttl, prefixTokens: e.prefixTokens })),
  } as unknown as Rendered);
}
