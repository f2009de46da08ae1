/**
 * The render's plan: which entries the provider should still hold, which
 * cache point will read, which will write, the predicted usage and cost, and
 * whether a warm entry goes unread (a bust). The renderer keeps a small ledger
 * of the entries its own markers wrote (in the state, see CacheEntryRecord);
 * the provider simulator (src/sim) gives the exact figures for a whole trace.
 */
import type { ModelProfile } from '../models/profiles.js';
import { promptCost, usageTokens } from '../models/pricing.js';
import type { CacheEntryRecord, LastRender, StreamBlock } from '../timeline/types.js';
import { positionsOf, previousBlock, previousLength, tokensOf } from './projection.js';
import type { CachePoint, PlannedUsage, RenderPlan } from './types.js';

/** What {@link planRequest} weighs: one request's stream and points, and the cache as it stands. */
export interface PlanInput {
  /** The whole stream (stable blocks, then the tail), or only the stable blocks when `tail` is given. */
  readonly stream: readonly StreamBlock[];
  /** The tail's blocks, when `stream` holds only the stable ones (the render keeps them apart). */
  readonly tail?: readonly StreamBlock[];
  /** Stable blocks before the tail (= `stream.length` without one). */
  readonly stableLength: number;
  readonly points: readonly CachePoint[];
  /** The cache entries still valid and warm (see `cacheStanding`). */
  readonly entries: readonly CacheEntryRecord[];
  readonly profile: ModelProfile;
  readonly now: number;
  /** First stream index that differs from the previous render's. */
  readonly change: number;
  readonly prev: LastRender | undefined;
  /** The request's model id (default: the profile's). */
  readonly model?: string;
}

/** The tier of the first changed block, as the API names a cache miss. */
function missCause(stream: readonly StreamBlock[], stableLength: number, change: number, prev: LastRender | undefined, model: string): RenderPlan['cause'] {
  if (!prev) return null;
  if (prev.model !== undefined && prev.model !== model) return 'model_changed';
  if (change >= previousLength(prev)) return null;
  const role = (change < stableLength ? stream[change]! : previousBlock(prev, change)).role;
  return role === 'tools' ? 'tools_changed' : role === 'system' ? 'system_changed' : 'messages_changed';
}

/** Keeps the ledger small: the entries a lookback could still reach are the newest ones. */
const LEDGER_SIZE = 48;
/**
 * How far under the model's minimum cacheable length a marked prefix may be, by our estimate, and still hold an
 * entry by the provider's count (our counter is cl100k or characters / 4, neither the provider's tokenizer, and the
 * provider adds framing per block): 0.6 of the minimum, an estimate (no provider figure). The widest gap measured is
 * the simulator's count (JSON length / 4: keys, ids, escapes) over the character counter's: at worst 0.62 (934 vs
 * 1,499) over 2,577 marked prefixes of 1,024-1,600 simulator tokens in 300 fuzz sessions each of 5 seeds
 * (test/property/simulated.test.ts; cl100k's worst there 0.89). Seed 23 case 182 had 760 vs 1,154 (0.66).
 */
const NEAR_MINIMUM = 0.6;

/**
 * Predicts reads and writes for the placed points, and the ledger after the request.
 */
export function planRequest(input: PlanInput): { plan: RenderPlan; entries: CacheEntryRecord[] } {
  const { stableLength, points, profile, now, change, prev } = input;
  const model = input.model ?? profile.id;
  const stream = input.stream;
  const tail = input.tail ?? stream.slice(stableLength);
  // A point may sit on the tail (a model that binds thinking keeps it, cache-points.ts): one position per tail block.
  const pos = tailPositions(positionsOf(stream, stableLength), (points.at(-1)?.index ?? -1) + 1);
  // The ledger is kept sorted by index, one entry per index (see below), so lookups walk it instead of building a
  // map per request; one that is not (a hand-made import) is put in that form first (the last entry of an index kept).
  const entries = ascending(input.entries, (e) => e.index) ? input.entries : byIndexOnce(input.entries);
  const reach = profile.lookback - 1;
  let read: { point: CachePoint; entry: CacheEntryRecord } | undefined;
  const touched: CacheEntryRecord[] = [];
  for (const p of points) {
    // Walk back from the point over at most `lookback` positions; the first entry found is the hit.
    let j = countAtMost(entries, p.index) - 1;
    for (let i = p.index; i >= 0 && pos.at(p.index) - pos.at(i) <= reach; i--) {
      while (j >= 0 && entries[j]!.index > i) j--;
      if (j < 0) break;
      const e = entries[j]!.index === i ? entries[j] : undefined;
      // Inside a tool_use/tool_result run only the run's last block is a lookback position.
      if (!e || (i !== p.index && i + 1 < pos.length && pos.at(i + 1) === pos.at(i))) continue;
      if (!touched.includes(e)) touched.push(e);
      if (!read || e.prefixTokens > read.entry.prefixTokens) read = { point: p, entry: e };
      break;
    }
  }
  // A possible entry (our estimate under the minimum, see `recorded`) may not exist: reading it refreshes it in the
  // ledger, but the plan bills no read for it (the provider bills what it holds; an honest figure is 0).
  const A = read && read.entry.prefixTokens >= profile.minCacheableTokens ? read.entry.prefixTokens : 0;
  const written = points.filter((p) => p.prefixTokens >= profile.minCacheableTokens);
  const after = written.filter((p) => p.prefixTokens > A);
  // A point our estimate puts just under the minimum may hold an entry by the provider's own count: the ledger
  // keeps it (never billed here), so a later request still reaches it (the bridge) instead of losing it unseen.
  const near = profile.minCacheableTokens * NEAR_MINIMUM;
  const readTokens = read?.entry.prefixTokens ?? 0;
  const recorded = points.some((p) => p.prefixTokens > readTokens && p.prefixTokens >= near && p.prefixTokens < profile.minCacheableTokens)
    ? points.filter((p) => p.prefixTokens > readTokens && p.prefixTokens >= near)
    : after;
  const oneHour = after.filter((p) => p.ttl === '1h').at(-1);
  const B = oneHour?.prefixTokens ?? A;
  const C = after.at(-1)?.prefixTokens ?? A;
  // In stream order, as one loop would add them: the stable part's sum is its layout's last prefix.
  let total = tokensOf(stream, stableLength);
  for (const b of tail) total += b.tokens;
  const usage: PlannedUsage = {
    input_tokens: total - C,
    cache_read_input_tokens: A,
    cache_creation_input_tokens: C - A,
    cache_creation: { ephemeral_5m_input_tokens: C - B, ephemeral_1h_input_tokens: B - A },
  };
  const cost = promptCost(profile.prices, usageTokens(usage));
  const best = input.entries.reduce((m, e) => Math.max(m, e.prefixTokens), 0);

  // The ledger after the request: every entry (a read one refreshed), and a new record per point beyond the
  // read, replacing the entry at its index; sorted by index, the newest LEDGER_SIZE kept.
  // Only points beyond the read are billed as writes; a point at or below it creates
  // no entry of its own (the provider bills no bytes for one, so assume none exists).
  // Both in index order (the points are, as placed: one per block): one merge.
  let ledger: CacheEntryRecord[] = [];
  let k = 0;
  for (const e of entries) {
    for (; k < recorded.length && recorded[k]!.index < e.index; k++)
      ledger.push(writeRecord(recorded[k]!, undefined, stream, tail, stableLength, now, profile));
    if (k < recorded.length && recorded[k]!.index === e.index)
      ledger.push(writeRecord(recorded[k++]!, touched.includes(e) ? refresh(e, now, profile) : e, stream, tail, stableLength, now, profile));
    else ledger.push(touched.includes(e) ? refresh(e, now, profile) : e);
  }
  for (; k < recorded.length; k++) ledger.push(writeRecord(recorded[k]!, undefined, stream, tail, stableLength, now, profile));
  if (ledger.length > LEDGER_SIZE) ledger = ledger.slice(-LEDGER_SIZE);
  const timelineWarm = prev !== undefined && input.entries.some((e) => e.block.segment !== 'envelope');
  const plan: RenderPlan = {
    warm: timelineWarm,
    firstChange: change,
    ...(change < stableLength && prev && change < previousLength(prev) ? { firstChangePath: stream[change]!.path } : {}),
    cause: missCause(stream, stableLength, change, prev, model),
    ...(read && A > 0 ? { read: { path: read.point.path, tokens: A, entry: read.entry.path } } : {}),
    writes: after.map((p) => ({ path: p.path, ttl: p.ttl, prefixTokens: p.prefixTokens })),
    usage,
    cost,
    bust: best > readTokens,
    ...belowMinimum(points, profile),
  };
  return { plan, entries: ledger };
}

/** A ledger entry a request read: its expiry pushed back (a read refreshes the entry's TTL). */
function refresh(e: CacheEntryRecord, now: number, profile: ModelProfile): CacheEntryRecord {
  return { ...e, expiresAt: Math.max(e.expiresAt, now + profile.ttlMs[e.ttl]) };
}

/**
 * The stable stream's lookback positions, then one position per tail block up to `length` (past the last stable
 * position). Read through `at`, not copied: the stable part is the layout's shared array (O(session) to copy).
 */
function tailPositions(stable: Int32Array, length: number): { readonly length: number; at(i: number): number } {
  const n = stable.length;
  const end = n > 0 ? stable[n - 1]! : -1;
  return { length: Math.max(n, length), at: (i) => (i < n ? stable[i]! : end + (i - n + 1)) };
}

/** The ledger entry a point writes (replacing `old`, the entry at its index, if any). */
function writeRecord(
  p: CachePoint,
  old: CacheEntryRecord | undefined,
  stream: readonly StreamBlock[],
  tail: readonly StreamBlock[],
  stableLength: number,
  now: number,
  profile: ModelProfile,
): CacheEntryRecord {
  return {
    path: p.path,
    index: p.index,
    block: p.index < stableLength ? stream[p.index]! : tail[p.index - stableLength]!,
    prefixTokens: p.prefixTokens,
    ttl: old && old.ttl === '1h' ? '1h' : p.ttl,
    expiresAt: Math.max(old?.expiresAt ?? 0, now + profile.ttlMs[p.ttl]),
  };
}

/** Whether `key` strictly ascends along `xs` (then an index is found by walking, not by a map). */
function ascending<T>(xs: readonly T[], key: (x: T) => number): boolean {
  for (let i = 1; i < xs.length; i++) if (!(key(xs[i - 1]!) < key(xs[i]!))) return false;
  return true;
}

/** The entries in index order, one per index (the last one listed there). */
function byIndexOnce(entries: readonly CacheEntryRecord[]): CacheEntryRecord[] {
  return [...new Map(entries.map((e) => [e.index, e])).values()].sort((a, b) => a.index - b.index);
}

/** How many of the entries (ascending by index) have an index ≤ `index` (binary search). */
function countAtMost(entries: readonly CacheEntryRecord[], index: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.index <= index) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The plain-words note when even the longest marked prefix is below the model's minimum. */
function belowMinimum(points: readonly CachePoint[], profile: ModelProfile): Pick<RenderPlan, 'belowMinimum'> {
  const longest = points.reduce((m, p) => Math.max(m, p.prefixTokens), 0);
  const minimum = profile.minCacheableTokens;
  if (points.length === 0 || longest >= minimum) return {};
  const n = (x: number) => x.toLocaleString('en-US');
  return {
    belowMinimum: {
      prefixTokens: longest,
      minimum,
      message:
        `Nothing will be cached: the prompt up to the last cache point is about ${n(longest)} tokens, below ${profile.id}'s minimum cacheable length of ${n(minimum)} tokens. ` +
        `The API silently caches nothing shorter, so cache reads stay 0 until the stable part of the prompt (tools, system, history) grows past ${n(minimum)} tokens.`,
    },
  };
}
