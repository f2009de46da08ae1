/**
 * Types of the provider cache simulator: what one simulated request returns
 * (usage, price, the per-request explanation), and the options. Declarations
 * only; see simulator.ts for the rules and docs/simulator.md for the decisions.
 */
import type { MessageCreateParamsBase } from '../providers/anthropic-types.js';
import type { PromptUsage, UsageCost } from '../models/pricing.js';

/** The request body the simulator reads (streaming and non-streaming params both extend it). */
export type SimParams = MessageCreateParamsBase;

/** One request of a session: its start time and its body. */
export interface SimRequest {
  /** Request start, in ms since the epoch. TTLs count from here. */
  readonly at: number;
  readonly params: SimParams;
  /** Output tokens of the response, if known; priced separately, never part of the comparison. */
  readonly outputTokens?: number;
}

/** `5m` (the default) or `1h`. */
export type CacheTtl = '5m' | '1h';

/** Where a block sits in the prefix: the API's invalidation tiers. */
export type Tier = 'tools' | 'system' | 'messages';

/** The API's own words for why a request could not reuse the previous one's prefix (one union, see render/types.ts). */
export type { MissCause } from '../render/types.js';
import type { MissCause } from '../render/types.js';

/** Counts the tokens of one block (a tool definition, a system block or a content block), marker already stripped. */
export type CountTokens = (block: unknown) => number;

/** The usage the API would report (input side), plus the output tokens if they were given. */
export interface SimUsage extends PromptUsage {
  readonly output_tokens: number;
}

/** The price of one request in US dollars, by usage field (see models/pricing.ts). */
export type SimCost = UsageCost;

/** A cache marker of a request, as the simulator saw it. */
export interface MarkerReport {
  /** 0-based, in render order. */
  readonly index: number;
  /** Where the marker sits, e.g. `tools.3`, `system.1`, `messages.4.content.0`. */
  readonly path: string;
  readonly tier: Tier;
  /** The position (0-based, after tool_use/tool_result run collapsing) of the marked block. */
  readonly position: number;
  readonly ttl: CacheTtl;
  /** Prefix tokens up to and including the marked block. */
  readonly tokens: number;
  /** True for the top-level (automatic caching) marker. */
  readonly auto: boolean;
  /** What the marker's lookback found: the position and prefix tokens of the entry it hit. */
  readonly hit: { readonly position: number; readonly tokens: number; readonly back: number } | null;
  /**
   * What happened at this marker: `read` (its hit is the request's read), `hit` (it hit
   * a shorter entry than the read), `write` (a new entry, billed), `covered` (at or below the
   * read, nothing to write), `below_minimum` (shorter than the model's minimum: nothing written).
   */
  readonly outcome: 'read' | 'hit' | 'write' | 'covered' | 'below_minimum';
}

/** What changed since the previous request the simulator accepted. */
export interface PrefixChange {
  /** The first position whose prefix differs from the previous request (0 for a model switch). */
  readonly position: number;
  /** The tier of that position in this request (`messages` when the request is a truncation). */
  readonly tier: Tier;
  readonly cause: MissCause;
}

/** The per-request plan: what changed, which marker reads, which write, usage, cost, bust. */
export interface RequestExplain {
  /** Positions in this request (after run collapsing). */
  readonly positions: number;
  readonly totalTokens: number;
  /** Null when the previous request's prefix is a prefix of this one (or there is no previous request). */
  readonly change: PrefixChange | null;
  readonly markers: readonly MarkerReport[];
  /** The marker whose hit is the read, or null when nothing was read. */
  readonly read: { readonly marker: number; readonly position: number; readonly tokens: number } | null;
  /** The markers that wrote an entry, with the tokens each adds beyond the previous write. */
  readonly writes: readonly { readonly marker: number; readonly position: number; readonly ttl: CacheTtl; readonly tokens: number }[];
  /**
   * True when a warm, valid entry matched a longer prefix of this request than was read:
   * the markers were placed so that the lookback could not find it.
   */
  readonly bust: boolean;
  /** Tokens of that longer warm prefix beyond the read (0 when not a bust). */
  readonly missedTokens: number;
  /** Position of that longer warm prefix (null when not a bust). */
  readonly missedPosition: number | null;
}

/** The API's 400 for a request shape it refuses. */
export interface SimRejection {
  readonly status: 400;
  readonly message: string;
}

interface SimResultBase {
  /** 0-based index of the request in this simulator's life. */
  readonly index: number;
  readonly at: number;
  readonly model: string;
}

/** A request the simulated API accepted. */
export interface SimAccepted extends SimResultBase {
  readonly rejected: null;
  readonly usage: SimUsage;
  readonly cost: SimCost;
  readonly explain: RequestExplain;
}

/** A request the simulated API refused: no usage, no cost, no state change. */
export interface SimRejected extends SimResultBase {
  readonly rejected: SimRejection;
  readonly usage: null;
  readonly cost: null;
  readonly explain: null;
}

/** What {@link CacheSimulator.send} returns. Narrow on `rejected`. */
export type SimResult = SimAccepted | SimRejected;
