/**
 * Pass 4 — cache-point placement. Puts at most four markers on the stable
 * stream, as DESIGN.md "The four cache points":
 *   ① last envelope block, ② last block of the previous turn,
 *   ③ last block of round N−offset of the current turn, ④ last stable block.
 *
 * Contract: pure; reads the stream, never changes a payload; never marks the
 * tail (it is appended after this pass). A point on a block the API refuses to
 * mark (thinking, redacted thinking, empty text) moves back to the nearest
 * markable block. Points on one block collapse into one marker.
 *
 * One refinement keeps every warm entry reachable: a marker finds an earlier
 * entry only within `lookback` (20) positions. When the newest entry the
 * previous request wrote (still valid, still warm) is out of reach of every
 * point — a round that added more than 19 positions, or a hide that changed
 * bytes after it — ③ (or ② before it) is placed on that entry so it is read
 * instead of re-written (a bust). Another keeps the tool catalog's entry: ⓪
 * marks the last tool while one of the four slots is free (turn 1, early
 * rounds), so an edit of the system prompt re-writes only the system part.
 * docs/cache-points.md has both refinements with their figures.
 *
 * One exception to "never marks the tail": on a model that binds thinking, the
 * tail a request sends stays in the history once answered (render/bind.ts
 * foldSentTail), so it is the newest stable block of the next request. ④ goes
 * on its last markable block: written where it is sent, read by the next
 * request, instead of sent uncached and then written by the next one.
 */
import { hiddenSetOf } from '../timeline/hidden.js';
import { parseTimelinePath } from '../timeline/paths.js';
import type { CacheEntryRecord, StreamBlock, TimelineState } from '../timeline/types.js';
import type { Pass, PassContext } from './context.js';
import { cacheStanding, positionsOf, prefixOf, type StreamLayout, streamLayout, tailStream } from './projection.js';
import { compactionDoomedFrom } from './compact.js';
import { doomedFrom } from './prune-rule.js';
import type { CachePoint, CachePointLabel, CacheTtl } from './types.js';

/** Pass 4: places the cache points on the work's stream (stable blocks only: the tail pass comes after). */
export const cachePointsPass: Pass = {
  name: 'cache-points',
  run(work, ctx) {
    const { entries, boundary } = cacheStanding(work.state, ctx);
    // A model that binds thinking keeps the sent tail in the history (bind.ts): ④ may go on it.
    const kept = ctx.profile.bindsThinking && work.state.tail.length > 0 ? tailStream(work.state, ctx) : undefined;
    return {
      ...work,
      cachePoints: placeCachePoints(work.stream, work.state, ctx, entries, doomedAt(work.stream, work.state, ctx), kept, boundary),
    };
  },
};

/**
 * Where writing stops: the newest round's payloads the next request prunes (economy), or what the next request's
 * compaction re-writes. An entry the provider holds past it is still read: the bridge puts a point on it.
 */
function doomedAt(stream: readonly StreamBlock[], state: TimelineState, ctx: PassContext): number | undefined {
  const pruned = doomedFrom(stream, state, ctx);
  const compacted = compactionDoomedFrom(stream, state, ctx);
  return pruned === undefined || compacted === undefined ? (pruned ?? compacted) : Math.min(pruned, compacted);
}

function markableAtOrBefore(stream: readonly StreamBlock[], i: number, floor = 0): number | undefined {
  for (let j = i; j >= floor; j--) if (stream[j]!.markable) return j;
  return undefined;
}

/** Places point `label` on the markable block at or before `want` (not before `floor`); none when there is none. */
function place(placements: Placement[], stream: readonly StreamBlock[], label: CachePointLabel, want: number | undefined, floor = 0): void {
  if (want === undefined || want < 0) return;
  const at = markableAtOrBefore(stream, want, floor);
  if (at === undefined) return;
  placements.push(at === want ? { label, index: at } : { label, index: at, moved: 'unmarkable' });
}

/** Where the points go, before collapsing. */
interface Placement {
  label: CachePointLabel;
  index: number;
  moved?: CachePoint['moved'];
}

/**
 * Places the cache points on the stable stream.
 *
 * @returns the points in stream order (≤ 4, TTLs non-increasing)
 */
export function placeCachePoints(
  stream: readonly StreamBlock[],
  state: TimelineState,
  ctx: PassContext,
  entries: readonly CacheEntryRecord[] = [],
  /** No point at or past this index: blocks from here on are pruned or compacted by the next request, so writing them is waste. */
  doomedFrom?: number,
  /** The tail, when the next request keeps it in the history (a model that binds thinking): ④ goes on it. */
  keptTail?: readonly StreamBlock[],
  /** A model that strips thinking: this request's strip boundary (projection.ts stripBoundary). */
  stripBoundary?: number,
): CachePoint[] {
  const options = ctx.options;
  const ttls: Record<CachePointLabel, CacheTtl> = options.ttl ? { ...options.ttl } : { 0: '5m', 1: '5m', 2: '5m', 3: '5m', 4: '5m' };
  const offset = options.preTailOffset;
  const placements: Placement[] = [];

  // The stream's layout has the envelope's end and the turns' starts (built with it); any other array is scanned.
  const layout = streamLayout(stream);
  const laid = layout !== undefined && layout.length === stream.length;
  let envelopeEnd = -1;
  if (laid) envelopeEnd = layout.envelopeEnd;
  else for (let i = 0; i < stream.length && stream[i]!.segment === 'envelope'; i++) envelopeEnd = i;
  place(placements, stream, 1, envelopeEnd);

  const turn = state.turns.at(-1);
  let turnStart = stream.length;
  if (turn) {
    const known = laid ? layout.turnStarts[state.turns.length - 1] : undefined;
    if (known !== undefined && (known === stream.length || stream[known]!.turn === turn.index)) turnStart = known;
    else
      for (let i = envelopeEnd + 1; i < stream.length; i++) {
        if (stream[i]!.turn === turn.index) {
          turnStart = i;
          break;
        }
      }
    // ②: the last block before the current turn, when it is timeline (a previous turn or a summary).
    if (turnStart - 1 > envelopeEnd) place(placements, stream, 2, turnStart - 1, envelopeEnd + 1);
    // A model that strips thinking: the next user message strips the thinking this request still sends, so the next
    // turn's request differs from the first such block on. ② goes on the last block before it when that is past the
    // previous turn: every request of this turn refreshes the entry there, and the next turn reads it (before, on a
    // turn whose earlier thinking an injected text had stripped, that stretch expired during a long turn and was
    // re-written).
    const kept = stripBoundary === undefined ? undefined : firstThinkingFrom(stream, Math.max(stripBoundary, turnStart));
    const floor = Math.max(turnStart, envelopeEnd + 1);
    const at = kept === undefined ? undefined : markableAtOrBefore(stream, kept - 1, floor);
    if (at !== undefined) {
      const point: Placement = at === kept! - 1 ? { label: 2, index: at } : { label: 2, index: at, moved: 'unmarkable' };
      const two = placements.findIndex((p) => p.label === 2);
      if (two >= 0) placements[two] = point;
      else placements.push(point);
    }
    // ③: the last block of round N−offset, where N is the round this request is for.
    const target = turn.rounds.length + 1 - offset;
    if (offset > 0 && target >= 1) {
      // From the layout: round `target` ends where the next round starts (or the stream ends); a scan otherwise.
      const known = laid ? lastOfRound(stream, layout, state, target) : undefined;
      let last = known ?? -1;
      if (known === undefined)
        for (let i = turnStart; i < stream.length; i++) {
          const b = stream[i]!;
          if (b.turn === turn.index && b.round !== undefined && b.round <= target) last = i;
          else if (b.round !== undefined && b.round > target) break;
        }
      if (last >= turnStart) place(placements, stream, 3, last, turnStart);
    }
  }
  // ② and ③ past the doomed stretch would write it too (the economy's is in the newest round: they are before it).
  if (doomedFrom !== undefined) for (let k = placements.length - 1; k >= 0; k--) if (placements[k]!.index >= doomedFrom) placements.splice(k, 1);
  const onTail = doomedFrom === undefined || doomedFrom >= stream.length ? lastMarkable(keptTail) : undefined;
  if (onTail !== undefined) placements.push({ label: 4, index: stream.length + onTail });
  else place(placements, stream, 4, (doomedFrom ?? stream.length) - 1);

  bridge(stream, ctx, placements, entries);
  if (state.lastRender === undefined && hasResponse(state)) lostState(stream, state, ctx, placements, envelopeEnd);
  // ⓪ on the last tool, only in a free slot: never at the expense of ①–④.
  let lastTool = -1;
  if (laid) lastTool = layout.lastTool;
  else for (let i = 0; i < stream.length && stream[i]!.role === 'tools'; i++) lastTool = i;
  if (lastTool >= 0 && lastTool < envelopeEnd && new Set(placements.map((p) => p.index)).size < 4) {
    place(placements, stream, 0, lastTool);
  }
  if (!options.ttl && options.adaptiveTtl) adaptTtls(stream, state, ctx, placements, entries, ttls);
  return collapse(stream, placements, ttls, keptTail);
}

/**
 * How far past a block the last scan found no thinking: the block at `upTo - 1` then, so a later stream that still
 * holds it there has the same blocks before it (a block removed or put in before it moves it). Keyed by the block the
 * scan started at: a turn without thinking on a model that strips it is scanned once, not on every request.
 */
const noThinkingPast = new WeakMap<StreamBlock, { readonly upTo: number; readonly last: StreamBlock }>();

/** The first thinking block at or after `from` (what the next user message strips on a model that strips thinking). */
export function firstThinkingFrom(stream: readonly StreamBlock[], from: number): number | undefined {
  const start = stream[from];
  if (!start) return undefined;
  const seen = noThinkingPast.get(start);
  let i = seen && seen.upTo <= stream.length && stream[seen.upTo - 1] === seen.last ? seen.upTo : from;
  for (; i < stream.length; i++) {
    const b = stream[i]!;
    const type = (b.param as { type?: string }).type;
    if (b.role === 'assistant' && (type === 'thinking' || type === 'redacted_thinking')) break;
  }
  if (i > from) noThinkingPast.set(start, { upTo: i, last: stream[i - 1]! });
  return i < stream.length ? i : undefined;
}

function lastMarkable(blocks: readonly StreamBlock[] | undefined): number | undefined {
  if (!blocks) return undefined;
  for (let k = blocks.length - 1; k >= 0; k--) if (blocks[k]!.markable) return k;
  return undefined;
}

/**
 * The last stream block of the current turn whose round is at most `target` (-1: none), read from the layout's
 * round starts; undefined when the layout does not describe this turn (the caller scans).
 */
function lastOfRound(stream: readonly StreamBlock[], layout: StreamLayout, state: TimelineState, target: number): number | undefined {
  const t = state.turns.length - 1;
  const turn = state.turns[t]!;
  const { starts, from } = layout.lastRounds;
  if (layout.lastTurn !== t || from + starts.length < turn.rounds.length) return undefined;
  // Rounds before `from` are summarized: none of them is in the stream.
  if (target <= from) return -1;
  const end = target < turn.rounds.length ? starts[target - from]! : stream.length;
  const last = end - 1;
  const b = stream[last];
  // The layout's figures, checked against the blocks they point at (a scan when they disagree).
  if (!b || b.turn !== turn.index || b.round === undefined || b.round > target) return undefined;
  const next = stream[end];
  if (next && next.turn === turn.index && (next.round === undefined || next.round <= target)) return undefined;
  return last;
}

function bridge(stream: readonly StreamBlock[], ctx: PassContext, placements: Placement[], entries: readonly CacheEntryRecord[]): void {
  // The newest entry that is still valid and warm: reading it is the cheapest possible start.
  let m = -1;
  for (const e of entries) if (e.index > m && stream[e.index]?.markable) m = e.index;
  if (m < 0) return;
  // Reach is counted in blocks, not in collapsed positions: the run rule (a run of
  // tool_use or tool_result blocks is one position) is recent and platform-specific,
  // and a read placed exactly on the entry hits under either count.
  const reach = ctx.profile.lookback - 1;
  if (placements.some((p) => p.index >= m && p.index - m <= reach)) return;
  const two = placements.find((p) => p.label === 2);
  const label: CachePointLabel = !two || m > two.index ? 3 : 2;
  const keep = placements.filter((p) => p.label !== label);
  placements.length = 0;
  placements.push(...keep, { label, index: m, moved: 'bridge' });
}

/**
 * Whether the state holds a response: a render of it without a previous render is a render of a history the
 * requests before sent (a lost or never-stored conversation state), not a conversation's first request.
 */
function hasResponse(state: TimelineState): boolean {
  return state.turns.length > 1 || (state.turns[0]?.rounds.length ?? 0) > 0;
}

/**
 * A render without a previous render of a history that has responses: the conversation's stored state was lost
 * (deleted, expired, a store that is down; conversation/prepare.ts) and the stream is rebuilt from the messages
 * alone, so it differs from what the requests before sent from the first block their sticky decisions changed
 * (a hide, a prune, thinking left out) or this render changes (on a model that binds thinking, every thinking
 * block is left out). The provider's entries just before that block are still warm (the request that made the
 * change read the one before it; an earlier render from the messages alone wrote the same bytes), but no ledger
 * says where, and a plain placement reaches none of them: ① sits on the envelope, ② on the previous turn's end,
 * ④ on the newest block, each reading `lookback` positions back (judge16: 16 of 98 disturbed sessions of
 * judge-400..499 wrote what the provider held). ② and ④ stay; ① and ③ become guesses, as bridges for this
 * request only (the state saved again carries the ledger from here):
 *
 * - ① reads the window right past the envelope's end (or past ② when ②'s window already holds the envelope): the
 *   history's first blocks, whose payloads pruning and hides change first;
 * - ③ goes on the last block before the first round this render changes (thinking left out, a hide) when no
 *   window holds it; else on the window just below ②'s (the stretch before the previous turn's end, where the
 *   last minutes' hides were), or, when ① already reads there, just below ④'s (the current turn's earlier rounds).
 *
 * Windows are counted in positions (a run of tool_use or tool_result blocks is one, as the plan counts them): a
 * guess, where the bridge counts blocks to be sure of a read.
 */
function lostState(stream: readonly StreamBlock[], state: TimelineState, ctx: PassContext, placements: Placement[], envelopeEnd: number): void {
  const n = stream.length;
  if (envelopeEnd < 0 || envelopeEnd >= n - 1) return;
  const reach = ctx.profile.lookback - 1;
  const positions = positionsOf(stream);
  // A point on the kept tail (a model that binds thinking) sits past the stable stream: one position per block there.
  const pos = (i: number): number => (i < n ? positions[i]! : positions[n - 1]! + i - n + 1);
  // The last markable block at position `p` or before, not before index `floor`.
  const at = (p: number, floor: number): number | undefined => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (positions[mid]! <= p) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : markableAtOrBefore(stream, lo - 1, floor);
  };
  const fixed = placements.filter((p) => p.label === 2 || p.label === 4).map((p) => pos(p.index));
  const covered = (q: number, windows: readonly number[]): boolean => windows.some((w) => w >= q && w - q <= reach);
  // ①: the lowest position from the envelope's end on that no fixed window holds, and `reach` past it.
  let low = pos(envelopeEnd);
  for (let moved = true; moved; ) {
    moved = false;
    for (const w of fixed) {
      if (w >= low && w - low <= reach) {
        low = w + 1;
        moved = true;
      }
    }
  }
  const above = Math.min(...fixed.filter((w) => w > low));
  let early = pos(envelopeEnd);
  const one = placements.findIndex((p) => p.label === 1);
  let e = one < 0 ? undefined : at(Math.min(low + reach, above - 1), envelopeEnd + 1);
  // When ① is what reads the envelope's entry, it stays within `reach` blocks of it: the Claude API counts a run of
  // tool_use or tool_result blocks as one position, older docs (and perhaps other platforms) each block, and in a
  // history of parallel calls 19 positions are 31-55 blocks: the envelope, the one entry sure to be warm, would be
  // re-written. Counted in blocks, the window reads it under either rule.
  if (e !== undefined && low === pos(envelopeEnd) && e - envelopeEnd > reach) e = markableAtOrBefore(stream, envelopeEnd + reach, envelopeEnd + 1);
  if (e !== undefined && pos(e) >= low) {
    placements[one] = { label: 1, index: e, moved: 'bridge' };
    early = pos(e);
  }
  const three = placements.findIndex((p) => p.label === 3);
  const windows = [...fixed, early];
  // What a window at position q reads that no other window does (③'s own excluded).
  const gain = (q: number): number => {
    let g = 0;
    for (let p = Math.max(0, q - reach); p <= q; p++) if (!covered(p, windows)) g++;
    return g;
  };
  const changed = firstChanged(stream, state, envelopeEnd + 1);
  let want: number | undefined;
  if (changed !== undefined && changed > 0 && !covered(pos(changed - 1), windows)) want = pos(changed - 1);
  else {
    // The window below ②'s or the one below ④'s, whichever reads more that no other does; ③'s own place when it
    // reads more still (a long current turn: ③ holds the rounds just below ④'s window). Ties go to the first.
    const two = placements.find((p) => p.label === 2);
    const four = placements.find((p) => p.label === 4);
    const candidates = [two && pos(two.index) - reach - 1, four && pos(four.index) - reach - 1].filter((q): q is number => q !== undefined && q > early);
    let best = three >= 0 ? gain(pos(placements[three]!.index)) : 0;
    for (const q of candidates) {
      const g = gain(q);
      if (g > best) {
        best = g;
        want = q;
      }
    }
  }
  if (want === undefined || covered(want, windows)) return;
  const x = at(want, 0);
  if (x === undefined || pos(x) <= early || placements.some((p) => p.index === x)) return;
  if (three >= 0) placements[three] = { label: 3, index: x, moved: 'bridge' };
  else if (new Set(placements.map((p) => p.index)).size < 4) placements.push({ label: 3, index: x, moved: 'bridge' });
}

/**
 * The first stream index at or after `from` of a round this render changed: a block it hid (still in the stream,
 * as a note) or the first block of a round whose thinking it left out (no longer in the stream). A render without a
 * previous one made every hidden record it holds.
 */
function firstChanged(stream: readonly StreamBlock[], state: TimelineState, from: number): number | undefined {
  let turn = Number.POSITIVE_INFINITY;
  let round = Number.POSITIVE_INFINITY;
  for (const path of hiddenSetOf(state).keys()) {
    const loc = parseTimelinePath(path);
    if (!loc) continue;
    const r = loc.round ?? 0;
    if (loc.turn < turn || (loc.turn === turn && r < round)) {
      turn = loc.turn;
      round = r;
    }
  }
  for (let i = from; i < stream.length; i++) {
    const b = stream[i]!;
    if (b.hidden) return i;
    if (b.turn !== undefined && (b.turn > turn || (b.turn === turn && (b.round ?? 0) >= round))) return i;
  }
  return undefined;
}

/**
 * Adaptive TTLs (opt-in `adaptiveTtl`, when the caller set no TTLs). A session whose user has already
 * gone idle for longer than the 5-minute window is likely to do it again, and
 * then every byte is re-written. From the first such gap on, ① and ② carry
 * 1-hour markers, so after the next pause the history up to the previous turn
 * is read instead of re-written. ② only turns 1-hour where its write is small
 * (it extends an entry just read): a 1-hour write costs 2× the input price.
 * Off by default: it keeps the timeline warm across pauses, so the cold-window
 * prune (which shrinks the prefix for free) no longer happens; on the committed
 * fixtures pruning saves more (docs/benchmarks.md has the figures).
 */
function adaptTtls(
  stream: readonly StreamBlock[],
  state: TimelineState,
  ctx: PassContext,
  placements: readonly Placement[],
  entries: readonly CacheEntryRecord[],
  ttls: Record<CachePointLabel, CacheTtl>,
): void {
  const prev = state.lastRender;
  const gaps = (prev?.idleGaps ?? 0) + (prev && ctx.now - prev.at >= ctx.profile.ttlMs['5m'] ? 1 : 0);
  if (gaps === 0) return;
  ttls[0] = '1h';
  ttls[1] = '1h';
  const two = placements.find((p) => p.label === 2);
  if (two) {
    const tokens = prefixOf(stream, two.index + 1)[two.index]!;
    let read = 0;
    for (const e of entries) if (e.index <= two.index && e.prefixTokens > read) read = e.prefixTokens;
    if (tokens - read <= Math.max(2048, tokens * 0.1)) ttls[2] = '1h';
  }
  hourAtMinimum(stream, ctx, placements, ttls);
}

/** How long a prefix the hour may go to when the envelope is under the minimum, in minimums (see hourAtMinimum). */
const HOUR_BOUND = 4;

/**
 * The provider writes no entry for a prefix under the model's minimum cacheable length, so when the envelope is
 * that short a 1-hour ① keeps nothing across a pause (fuzz9, doors runner seed 909: 543 tokens, the history
 * re-written after each 7-62 minute gap). The hour then goes to the first of ⓪ ① ② whose prefix reaches the
 * minimum: the shortest entry that stays in place for the turn (③ and ④ move every round: an hour there is bought
 * again by each request that writes it). Only while that prefix is at most HOUR_BOUND minimums: like the envelope's,
 * the bet is then small, while an hour bought cold for a long history is lost whenever the next pause outlasts it or
 * never comes (the fuzz runners' adaptive sessions, 6 seeds × 150 cases each: with no bound +1.6 % (doors) / +1.2 %
 * (simulated) against before, with it +0.2 % / +0.05 %). The points before it turn 1-hour too (collapse).
 */
function hourAtMinimum(stream: readonly StreamBlock[], ctx: PassContext, placements: readonly Placement[], ttls: Record<CachePointLabel, CacheTtl>): void {
  const stay = placements.filter((p) => p.label <= 2).sort(byIndex);
  if (stay.length === 0) return;
  const prefix = prefixOf(stream, stay.at(-1)!.index + 1);
  const minimum = ctx.profile.minCacheableTokens;
  const first = stay.find((p) => prefix[p.index]! >= minimum);
  if (first && prefix[first.index]! <= HOUR_BOUND * minimum) ttls[first.label] = '1h';
}

const byIndex = (a: Placement, b: Placement): number => a.index - b.index;
const byNumber = (a: number, b: number): number => a - b;

function collapse(
  stream: readonly StreamBlock[],
  placements: readonly Placement[],
  ttls: Record<CachePointLabel, CacheTtl>,
  tail: readonly StreamBlock[] = [],
): CachePoint[] {
  // Grouped by index in stream order; a group keeps the placements' order (the sort is stable).
  const sorted = placements.slice().sort(byIndex);
  const last = sorted.length > 0 ? Math.max(-1, sorted.at(-1)!.index) : -1;
  const stable = prefixTokensUpTo(stream, Math.min(last, stream.length - 1));
  // A point on the kept tail (indexes past the stable stream) counts the stable stream, then the tail up to it: the
  // tail's part summed on its own (the stable part is the layout's shared array, O(session) to copy).
  const n = stream.length;
  const onTail = new Float64Array(Math.max(0, last + 1 - n));
  let sum = n > 0 && onTail.length > 0 ? stable[n - 1]! : 0;
  for (let k = 0; k < onTail.length; k++) onTail[k] = sum += tail[k]!.tokens;
  const prefixAt = (i: number): number => (i < n ? stable[i]! : onTail[i - n]!);
  const blockAt = (i: number): StreamBlock => (i < stream.length ? stream[i]! : tail[i - stream.length]!);
  const points: CachePoint[] = [];
  for (let i = 0; i < sorted.length; ) {
    const index = sorted[i]!.index;
    const labels: CachePointLabel[] = [];
    let moved: CachePoint['moved'];
    for (; i < sorted.length && sorted[i]!.index === index; i++) {
      labels.push(sorted[i]!.label);
      moved ??= sorted[i]!.moved;
    }
    labels.sort(byNumber);
    const ttl = labels.some((l) => ttls[l] === '1h') ? '1h' : '5m';
    points.push({
      labels,
      index,
      path: blockAt(index).path,
      ttl,
      prefixTokens: prefixAt(index),
      ...(moved ? { moved } : {}),
    });
  }
  // Stream order need not follow label order (④ held back before doomed payloads, a bridge,
  // a point moved off an unmarkable block), so a 1-hour label can land after a 5-minute one.
  // The API refuses that (400); re-rank instead of throwing: a point before a 1-hour point is
  // part of that point's prefix, which the caller wants kept for the hour, so it is 1-hour too.
  let longer = false;
  for (let i = points.length - 1; i >= 0; i--) {
    if (points[i]!.ttl === '1h') longer = true;
    else if (longer) points[i] = { ...points[i]!, ttl: '1h' };
  }
  return points;
}

function prefixTokensUpTo(stream: readonly StreamBlock[], last: number): Float64Array {
  return prefixOf(stream, last + 1);
}
