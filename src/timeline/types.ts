/**
 * The immutable session state: envelope, timeline (turns → rounds → blocks),
 * tail, and the sticky decisions earlier renders made (hidden blocks,
 * summaries). Every object is frozen; edits go through immer (see edit.ts), so
 * appending a round shares every untouched object with the previous state.
 */
import type { ContentBlockParam, TextBlockParam, Tool, ToolUnion } from '../providers/anthropic-types.js';

/** A logical address that always reads a block back, e.g. `turns/3/rounds/2/results/toolu_01`. */
export type BlockPath = string;

/** Where a block sits in the prompt. */
export type Segment = 'envelope' | 'timeline' | 'tail';

/** One unit of the stream: a tool definition, a system text block, or one content block of a message. */
export interface Block {
  /** Stable id: the tool_use id for tool calls/results, otherwise derived from the path. */
  readonly id: string;
  readonly path: BlockPath;
  /** The provider-facing payload, exactly as it will be sent (minus cache markers). */
  readonly param: ContentBlockParam;
}

/** A tool definition in the envelope. */
export interface ToolBlock {
  readonly id: string;
  readonly path: BlockPath;
  readonly tool: ToolUnion | Tool;
}

/** A skill the agent may load: rendered as one catalog block in `system`. */
export interface Skill {
  readonly name: string;
  readonly description: string;
}

/** The stable per-agent front: `tools` + `system` in Anthropic terms. */
export interface Envelope {
  /** Runtime instructions first, then agent/domain instructions; one system block each. */
  readonly instructions: readonly Block[];
  readonly tools: readonly ToolBlock[];
  readonly skills: readonly Skill[];
  /** The rendered skill catalog block (absent without skills). */
  readonly skillCatalog?: Block;
}

/** One model response and the tool results that answer it. */
export interface Round {
  /** 1-based within its turn. */
  readonly index: number;
  /** Assistant content blocks, as the model produced them. */
  readonly response: readonly Block[];
  /** tool_result blocks (in the order given), then any text the runtime injected. */
  readonly results: readonly Block[];
  /** tool_use ids of the response not yet answered. */
  readonly open: readonly string[];
  /** When the response was recorded (ms since epoch), if known. */
  readonly at?: number;
}

/** Starts with a user message; then rounds until the agent answers. */
export interface Turn {
  /** 1-based. */
  readonly index: number;
  readonly user: readonly Block[];
  readonly rounds: readonly Round[];
  readonly at?: number;
}

/**
 * Why a payload left the model's eyes. `binding`: a thinking block left out because something before it
 * changed since the request that produced it (models that bind thinking to its prefix, render/bind.ts).
 */
export type HideReason = 'agent' | 'prune' | 'economy' | 'binding';

/** A sticky hide/prune decision: the block renders as `note` from now on. */
export interface HiddenRecord {
  readonly path: BlockPath;
  readonly reason: HideReason;
  /** The replacement text shown in place of the payload. */
  readonly note: string;
  /** Characters of the original payload (for the note and reports). */
  readonly chars: number;
  /**
   * A duplicate (economy, render/dedupe.ts): an earlier block with the same
   * payload, visible when this one was replaced; the note points at it.
   */
  readonly sameAs?: BlockPath;
}

/**
 * A sticky compaction: turns `fromTurn..toTurn` render as one summary block.
 * Long single-turn sessions are common, so a summary may end inside a turn:
 * with `throughRound`, turn `toTurn` is covered through that round (its user
 * message included) and its later rounds stay visible.
 */
export interface Summary {
  readonly path: BlockPath;
  readonly fromTurn: number;
  /** When set, the summary starts at this round of `fromTurn` (an earlier summary covered the rounds before). */
  readonly fromRound?: number;
  readonly toTurn: number;
  readonly throughRound?: number;
  readonly text: string;
  /** Every path the summary covers (all readable with recall). */
  readonly paths: readonly BlockPath[];
  /** Which summarizer produced it. */
  readonly by: string;
}

/** A hide the caller asked for outside the editable zone, applied at the next prune. */
export interface DeferredHide {
  readonly path: BlockPath;
  readonly note?: string;
}

/** The whole session. Immutable; every edit returns a new state sharing what did not change. */
export interface TimelineState {
  readonly model: string;
  readonly envelope: Envelope;
  readonly turns: readonly Turn[];
  /** The volatile end of the next request. Never cached, never kept in the timeline. */
  readonly tail: readonly Block[];
  /**
   * Sticky hide/prune decisions by path: a frozen plain object, keys in the
   * order the paths were first hidden. On a state the renderer made it is
   * built on its first read (then the same object): the set itself is kept
   * persistent (timeline/hidden.ts), so a request that prunes does not copy
   * every earlier record. Read it as an object as before; code inside the
   * library reads the set through `hiddenSetOf(state)` and never builds it.
   */
  readonly hidden: Readonly<Record<BlockPath, HiddenRecord>>;
  /** Sticky compactions, oldest first; they cover consecutive turn ranges from turn 1. */
  readonly summaries: readonly Summary[];
  /** Hides waiting for the next cold window (or compaction). */
  readonly deferred: readonly DeferredHide[];
  /** Whether the one-time prune notice has been shown (it is then part of the stream). */
  readonly pruneNotice: boolean;
  /** What the previous render sent: when, and which paths carried markers (for bridging and the clock). */
  readonly lastRender?: LastRender;
}

/** A cache entry the renderer expects the provider to hold (written at one of its markers). */
export interface CacheEntryRecord {
  readonly path: BlockPath;
  /** Stream index of the marked block when it was written. */
  readonly index: number;
  /** The marked stream block (identity: the entry is valid while the same object sits at `index`). */
  readonly block: StreamBlock;
  readonly prefixTokens: number;
  readonly ttl: CacheTtl;
  /** Reads refresh it; it is gone at this time (ms). */
  readonly expiresAt: number;
}

/** Memory of the previous render, used for the cache clock and to keep reads reachable. */
export interface LastRender {
  readonly at: number;
  /** The model it was for (a model switch misses everything). */
  readonly model?: string;
  /** The stable part of the stream it sent (memoized blocks: identity compares are exact and cheap). Made by the renderer: built when first read, frozen. */
  readonly stream: readonly StreamBlock[];
  /** Entries believed to exist after that request, oldest position first. */
  readonly entries: readonly CacheEntryRecord[];
  /** Number of the turn/round the request was for. */
  readonly turn: number;
  readonly round: number;
  /**
   * Set only on the state the request after a cut reads (conversation/cut-shadow.ts withShadowLedger, never saved):
   * the stream past the cut is again the one the request before the cut sent, up to round `round` of turn `turn`, so
   * the rounds before it are not new for dedupe (render/dedupe.ts), which changes only what no request has sent, nor
   * for the prune's first chance (prune-rule.ts firstChanceFound, reuse.ts firstChance), which each round gets once.
   */
  readonly sentThrough?: { readonly turn: number; readonly round: number };
  /**
   * Set only on the state a lost state renders from with the process's copy as a cache hint (conversation/local-copy.ts
   * withLedgerHint, never saved), when `otherView` is an earlier request's that reads further now: the entries the
   * copy's latest request wrote past where this state parts from it (on the bytes of decisions the lost state no
   * longer has). The render keeps them as its superseded view (render.ts), so a later request that makes the same
   * decision again (economy prunes the same result) reads them.
   */
  readonly undone?: OtherView;
  /** Requests rendered in this session so far. */
  readonly requests: number;
  /** How many renders came after a pause longer than the 5-minute cache window. */
  readonly idleGaps: number;
  /**
   * The tail that request sent (models that bind thinking only; empty when it had none). The next render
   * keeps it, once a response to that request was appended, as ordinary content where it was sent
   * (render/bind.ts), so the response's thinking keeps the prefix it was produced under.
   */
  readonly tail?: readonly StreamBlock[];
  /**
   * Models that do not keep thinking: that request's strip boundary, the index (in its stable stream followed by
   * its tail) of its last user block other than a tool_result (the tail, an injected text, a user message). The API
   * left out every thinking block before it, so the provider's entries are prefixes of the stream without them
   * (render/projection.ts stripBoundary, validEntries). 0: none was left out.
   */
  readonly stripBoundary?: number;
  /**
   * Models that do not keep thinking: another view of the provider's entries, which the previous render's ledger does
   * not hold because that request stripped other thinking than the view's request: the request before a cut, for the
   * request that appends past the cut again (conversation/cut-shadow.ts withOwnView), or an earlier request whose
   * entries the previous one could not read (its strip boundary moved past thinking, e.g. a tail that comes and goes),
   * kept for one more render (render.ts); or, any model, the entries a compaction superseded (`superseded`), kept by
   * the compacting render and carried on by the renders after it while they are warm (an edit or cut back into the
   * summarised stretch re-sends their bytes). Its stream
   * (blocks before `from` are the previous render's; an array of a chain may hold later blocks past the entries: only
   * indices up to the last entry are read), its entries and its strip boundary. validEntries keeps the entries still valid of either view. Exported with the conversation state
   * (conversation/state.ts exportView: its stream from `from` to its last entry).
   */
  readonly otherView?: OtherView;
}

/** A view of the provider's entries beside the previous render's (LastRender.otherView). */
export interface OtherView {
  readonly from: number;
  readonly stream: readonly StreamBlock[];
  readonly entries: readonly CacheEntryRecord[];
  readonly stripBoundary: number;
  /** The entries a compaction superseded: carried on from render to render while any is warm (projection.ts). */
  readonly superseded?: true;
}

// The rendered stream: what every render pass reads and writes, kept with the data model
// (LastRender and the cache-entry ledger hold it).

/** Which part of the request a stream block belongs to (Anthropic's prefix order). */
export type StreamRole = 'tools' | 'system' | 'user' | 'assistant';

/** What a stream block is, in the words of DESIGN.md. */
export type StreamKind = 'tool' | 'instruction' | 'skills' | 'summary' | 'notice' | 'user' | 'response' | 'call' | 'result' | 'injected' | 'tail';

/** One block of the rendered stream. Memoized per source block: unchanged blocks are the same object across renders. */
export interface StreamBlock {
  readonly path: BlockPath;
  readonly id: string;
  readonly role: StreamRole;
  readonly kind: StreamKind;
  readonly segment: Segment;
  /** The payload as sent (without cache markers). */
  readonly param: ContentBlockParam | TextBlockParam | Tool | ToolUnion;
  /** Estimated tokens of this block. */
  readonly tokens: number;
  /** Set when the payload was replaced by a note. */
  readonly hidden?: HideReason;
  /** Whether the API accepts a cache marker on it (not thinking, redacted thinking or empty text). */
  readonly markable: boolean;
  readonly turn?: number;
  readonly round?: number;
}

/** Cache lifetime of a marker. */
export type CacheTtl = '5m' | '1h';
