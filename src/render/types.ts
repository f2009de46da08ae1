/**
 * Types of the render pipeline: cache points, decisions, options, the plan and
 * the rendered result. The block stream itself is timeline data
 * (timeline/types.ts): the data model never depends on the layer above it.
 */
import type { ModelProfile } from '../models/profiles.js';
import type { BlockTokenCache } from '../tokens/counter.js';
import type { PromptUsage } from '../models/pricing.js';
import type { BlockPath, CacheTtl, HideReason, StreamBlock, TimelineState } from '../timeline/types.js';

// The stream is the timeline layer's data (timeline/types.ts); re-exported here for render's callers.
export type { CacheTtl, StreamBlock, StreamKind, StreamRole } from '../timeline/types.js';
import type { Summarizer } from '../summarize/types.js';

/**
 * ① envelope, ② previous turn, ③ pre-tail, ④ tail point; and ⓪ tools, on the
 * last tool definition, placed only while one of the four slots is free (turn 1,
 * early rounds): it keeps the tool catalog's entry warm so an edit of the
 * system prompt, or an appended tool, re-writes the system part, not every tool.
 */
export type CachePointLabel = 0 | 1 | 2 | 3 | 4;

/** A block that carries a cache marker. */
export interface CachePoint {
  /** Which points collapsed onto this block (usually one). */
  readonly labels: readonly CachePointLabel[];
  /** Index in the stream. */
  readonly index: number;
  readonly path: BlockPath;
  readonly ttl: CacheTtl;
  /** Tokens of the prefix up to and including this block. */
  readonly prefixTokens: number;
  /** Whether it was moved back from an unmarkable block, or placed to bridge a read. */
  readonly moved?: 'unmarkable' | 'bridge';
}

/**
 * What changed before a thinking block, on a model that binds thinking to its prefix: `envelope` (system or
 * tools), `compaction` (a summary), `hidden` (a prune or hide note), `tail` (the previous request's tail is
 * not where it was sent), `edit` (any other change of the history, e.g. a block left out), `unknown` (`prepare`
 * cannot know the prefix it was produced under: the conversation's stored state was lost, or the response answers
 * a request the stored state did not render; conversation/unvouched.ts).
 */
export type BindingCause = 'envelope' | 'compaction' | 'hidden' | 'tail' | 'edit' | 'unknown';

/** Why a thinking block was left out on a model that binds thinking (see {@link BindingCause}). */
export interface BindingDrop {
  readonly cause: BindingCause;
  /** The first block that differs from what the request that produced the thinking sent. */
  readonly changedAt: BlockPath;
}

/** A change to the stream the render made (or deferred), with its price. */
export type Decision =
  | {
      readonly type: 'hide' | 'prune';
      readonly path: BlockPath;
      readonly reason: HideReason;
      readonly tokensRemoved: number;
      readonly price?: GatePrice;
      /** Reason `binding`: a thinking block left out because its prefix changed (render/bind.ts), and what changed. */
      readonly binding?: BindingDrop;
    }
  | {
      readonly type: 'compact';
      readonly path: BlockPath;
      readonly fromTurn: number;
      readonly toTurn: number;
      readonly tokensRemoved: number;
      readonly by: string;
      readonly fallback?: string;
      /** The ceiling is mandatory, but it is priced like every change. */
      readonly price: GatePrice;
      /** What the summarizer itself cost (an LLM call), reported apart from the request. */
      readonly summarizerCost?: number;
    }
  | { readonly type: 'defer'; readonly path: BlockPath; readonly why: string; readonly price?: GatePrice }
  | { readonly type: 'notice'; readonly path: BlockPath };

/** What the cost gate weighed. Dollars. */
export interface GatePrice {
  /**
   * For a prune weighed with re-use (render/reuse.ts): the chance a later call
   * needs the payload, why, and the expected cost of the recalls it would force.
   */
  readonly reuse?: { readonly p: number; readonly why: string; readonly expectedRecall: number };
  /** Expected saving over the remaining requests. */
  readonly saving: number;
  /** Re-write this change causes now. */
  readonly rewrite: number;
  readonly warm: boolean;
  /**
   * Models that bind thinking: the visible thinking this change makes the guard leave out (render/bind.ts), and
   * its price (see {@link ThinkingLost}). Weighed against the saving where the gate decides (an agent's hide).
   */
  readonly thinkingLost?: ThinkingLost;
}

/**
 * Thinking left out for preserved thinking (models that bind thinking): the blocks, their tokens, and an
 * estimate of what losing them costs: the tokens at the model's output price, as if the model thought them again
 * (the docs: "Claude can sometimes think more to re-create the dropped thinking"). The tokens also leave the
 * request (and its cached prefix); that saving is not netted here.
 */
export interface ThinkingLost {
  readonly blocks: number;
  readonly tokens: number;
  readonly cost: number;
}

/** Tokens per segment of the request. */
export interface SegmentTokens {
  readonly envelope: number;
  readonly timeline: number;
  readonly tail: number;
  readonly total: number;
}

/** Pruning (the freshness rule). */
export interface PruneOptions {
  /** Keep payloads of the most recent turns (default 2; 0 under the `economy` policy). */
  readonly keepTurns?: number;
  /** Keep payloads of the most recent rounds (default 8; 1 under the `economy` policy), across turn boundaries. */
  readonly keepRounds?: number;
  /** Only payloads above this many characters are pruned (default 1,000; 300 under the `economy` policy). */
  readonly minChars?: number;
  /** Disable pruning. */
  readonly enabled?: boolean;
  /**
   * Weigh the recalls a removal may force (render/reuse.ts): a payload a later
   * call is likely to need (the newest text of a file being worked on) stays
   * visible unless the tokens saved outweigh the expected extra round. The
   * windows above are the floor of that decision. Default true.
   */
  readonly reuse?: boolean;
  /**
   * What a forced recall of a file's text costs beyond its bill (a round of latency,
   * the risk the agent edits from the note), in input tokens at the model's input
   * price. A call's result is needed again only by the same call, which brings it
   * back itself: it carries no penalty.
   * Default 100,000 (under both policies): the price at which economy forces at most
   * ~1 recall per 100 requests on the fixtures (docs/benchmarks.md, "Economy and re-use").
   */
  readonly recallPenaltyTokens?: number;
}

/** Compaction (the hard ceiling). */
export interface CompactOptions {
  /** Compact when visible input reaches this fraction of the window (default 0.9). */
  readonly threshold?: number;
  /** Compact until visible input is under this fraction (default 0.6). */
  readonly target?: number;
  readonly enabled?: boolean;
}

/** Options of {@link render}. */
export interface RenderOptions {
  /** The model profile (or id) to price and place for; default: the state's model. */
  readonly profile?: ModelProfile;
  /** Extra model profiles by id. */
  readonly profiles?: Readonly<Record<string, ModelProfile>>;
  /** Render time, ms since epoch (default Date.now()). The cache clock compares it with the previous render. */
  readonly now?: number;
  /** Round offset of ③ (default 4: ③ is the last block of round N−4). */
  readonly preTailOffset?: number;
  /** TTL per cache point (default '5m' for all). Longer TTLs must come first. */
  readonly ttl?: Partial<Record<'envelope' | 'previousTurn' | 'preTail' | 'tail', CacheTtl>>;
  /**
   * Without explicit `ttl`: once the session has paused longer than 5 minutes,
   * give ① and ② 1-hour markers so the next pause re-writes only the last turn.
   * Default false (see cache-points.ts for the trade-off with pruning).
   */
  readonly adaptiveTtl?: boolean;
  readonly prune?: PruneOptions;
  readonly compact?: CompactOptions;
  /** `conservative` (default) or `economy`. */
  readonly policy?: 'conservative' | 'economy';
  /** Token counting (memoized per block). Default: a process-wide tiktoken cache. */
  readonly tokens?: BlockTokenCache;
  /** Expected requests left in the session, for the cost gate (default: estimated from the session so far). */
  readonly expectedRemaining?: number;
  /**
   * Calibration: the provider's token count divided by the local estimate (see
   * Calibration in tokens/calibration.ts). Thresholds compare estimate × factor. Default 1.
   */
  readonly tokenFactor?: number;
  /** Summarizer for compaction (default: the deterministic extractive one). Async ones need renderAsync. */
  readonly summarizer?: Summarizer;
  /** How long renderAsync waits for the summarizer before falling back to the extractive one (default 30 s). */
  readonly summarizerTimeoutMs?: number;
}

/** The result of a render. */
export interface Rendered {
  /** The state with this render's decisions applied (sticky): use it for the next edit. */
  readonly state: TimelineState;
  readonly model: string;
  /** The profile the render priced and placed for. */
  readonly profile: ModelProfile;
  /**
   * The whole stream: envelope, timeline, then the tail. Built when first read
   * (then kept, frozen): the renderer keeps the stable part and the tail apart
   * and shares the stable blocks along a chain of renders, so the engine's own
   * readers (the plan, `toAnthropic`) never need this array.
   */
  readonly stream: readonly StreamBlock[];
  /** Index of the first tail block (= stream.length when there is no tail). */
  readonly tailStart: number;
  readonly cachePoints: readonly CachePoint[];
  readonly tokens: SegmentTokens;
  readonly decisions: readonly Decision[];
  /** Turn and round this request is for (round N renders rounds 1..N−1). */
  readonly turn: number;
  readonly round: number;
  readonly at: number;
  /** First stream index that differs from the previous render's stable part (its length when only appended). */
  readonly firstChange: number;
  /** Which point reads, which write, predicted usage and cost, and whether a warm entry goes unread. */
  readonly plan: RenderPlan;
}

/** The API's own words for why a request could not reuse the previous one's prefix (`diagnostics.cache_miss_reason.type`). */
export type MissCause = 'model_changed' | 'tools_changed' | 'system_changed' | 'messages_changed';

/** Predicted usage in the API's own field names. */
export type PlannedUsage = PromptUsage;

/** What this request is expected to do with the provider's cache. */
export interface RenderPlan {
  /** Whether any timeline entry of an earlier request is still warm. */
  readonly warm: boolean;
  /** First stream index that changed since the previous request (its length when only appended). */
  readonly firstChange: number;
  /** Path of that block (undefined when nothing changed). */
  readonly firstChangePath?: string;
  /**
   * Why the previous request's prefix does not carry over, in the API's own words
   * (`diagnostics.cache_miss_reason`): null when this request only appends to it.
   */
  readonly cause: MissCause | null;
  /** The point expected to read, and how many tokens. */
  readonly read?: { readonly path: string; readonly tokens: number; readonly entry: string };
  /** Points expected to write (above the model's minimum). */
  readonly writes: readonly { readonly path: string; readonly ttl: '5m' | '1h'; readonly prefixTokens: number }[];
  readonly usage: PlannedUsage;
  /** Predicted input cost in dollars. */
  readonly cost: number;
  /** A warm, valid entry longer than what is read: the request fails to reuse it. */
  readonly bust: boolean;
  /**
   * Models that bind thinking: the thinking this request leaves out that the previous one sent (its `binding`
   * decisions), and the estimated price of losing it ({@link ThinkingLost}). Absent when none.
   */
  readonly thinkingLost?: ThinkingLost;
  /**
   * Set when nothing can be cached because the whole marked prefix is shorter
   * than the model's minimum cacheable length (the API then caches nothing,
   * without an error): the most common reason cache reads stay at 0.
   */
  readonly belowMinimum?: {
    /** Tokens up to the last cache point (the longest prefix this request could cache). */
    readonly prefixTokens: number;
    /** The model's minimum cacheable prompt length. */
    readonly minimum: number;
    /** The same in plain words, for logs. */
    readonly message: string;
  };
}
