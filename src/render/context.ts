/**
 * What every pass gets and returns. A pass is `run(work, ctx) → work`:
 * `work` is the render in progress (the timeline state with the decisions so
 * far, then the block stream and its cache points), `ctx` everything fixed for
 * the whole render (profile, token cache, clock, options resolved once).
 * Declarations and the context builder only; the passes import this, never
 * each other.
 */
import { resolveProfile, type ModelProfile } from '../models/profiles.js';
import type { SummaryOutput } from '../summarize/types.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import type { StreamBlock, TimelineState } from '../timeline/types.js';
import { resolveRenderOptions, type ExtraOptionChecks, type ResolvedRenderOptions } from './options.js';
import type { CachePoint, Decision, RenderOptions } from './types.js';

// TYPES

/** Summary texts computed ahead (by an async summarizer), keyed by `CompactionPlan.key`. */
export type SummaryTexts = ReadonlyMap<string, SummaryOutput>;

/** What every pass gets besides the work: fixed for the whole render. */
export interface PassContext {
  readonly profile: ModelProfile;
  readonly tokens: BlockTokenCache;
  /** Render time: the clock is read once per render. */
  readonly now: number;
  /** The render options, validated and with every default filled in (see options.ts). */
  readonly options: ResolvedRenderOptions;
  /** Summaries an async summarizer already wrote (renderAsync); compaction uses them before summarizing itself. */
  readonly summaries?: SummaryTexts;
}

/** The render in progress, as it goes from pass to pass. */
export interface RenderWork {
  /** The timeline state: prune and compact apply their sticky decisions to it; the later passes read it. */
  readonly state: TimelineState;
  /** What prune and compact decided (and deferred), in order. */
  readonly decisions: readonly Decision[];
  /** The block stream: empty until the hide pass projects the state, the tail appended by the tail pass. */
  readonly stream: readonly StreamBlock[];
  /** Index of the first tail block (`stream.length` until the tail pass). */
  readonly tailStart: number;
  /** The cache points, set by the cache-point pass. */
  readonly cachePoints: readonly CachePoint[];
}

/** The names of the five passes, in the order DESIGN.md fixes. */
export type PassName = 'prune' | 'compact' | 'hide' | 'cache-points' | 'tail';

/** One pass of the pipeline. Pure: returns new work, never mutates its input. */
export interface Pass {
  readonly name: PassName;
  run(work: RenderWork, ctx: PassContext): RenderWork;
}

// IMPLEMENTATION

export { defaultTokenCache } from './options.js';

/**
 * Validates the options (once) and resolves the pass context from the state and them.
 *
 * @throws {InvalidOptionError} for an option the engine cannot honour
 */
export function passContext(state: TimelineState, options: RenderOptions = {}, extra?: ExtraOptionChecks): PassContext {
  return contextOf(state, resolveRenderOptions(options, extra));
}

/** The pass context of already resolved options (no second clock read, no second validation). */
export function contextOf(state: TimelineState, options: ResolvedRenderOptions, summaries?: SummaryTexts): PassContext {
  return {
    profile: options.profile ?? resolveProfile(state.model, options.profiles),
    tokens: options.tokens,
    now: options.now,
    options,
    ...(summaries ? { summaries } : {}),
  };
}

/** The work a render starts from: the state, nothing decided or projected yet. */
export function startWork(state: TimelineState): RenderWork {
  return { state, decisions: [], stream: [], tailStart: 0, cachePoints: [] };
}
