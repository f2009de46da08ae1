/**
 * The render's plan: which entries the provider should still hold, which
 * cache point will read, which will write, the predicted usage and cost, and
 * whether a warm entry goes unread (a bust). The renderer keeps a small ledger
 * of the entries its own markers wrote (in the state, see CacheEntryRecord);
 * the provider simulator (src/sim) gives the exact figures for a whole trace.
 */
import type { ModelProfile } from '../models/profiles.js';
import { promptCost, usageTokens } from '../models/pricing.js';
import type { CacheEntryRecord, LastRender, TimelineState } from '../timeline/types.js';
import { firstChange, positions } from './cache-points.js';
import { hiddenReplacements, type PassContext } from './hide.js';
import type { CachePoint, PlannedUsage, RenderPlan, StreamBlock } from './types.js';

/** Entries of the previous render still valid for this stream and still warm at `now`. */
export function validEntries(
  prev: LastRender | undefined,
  stream: readonly StreamBlock[],
  change: number,
  now: number,
): CacheEntryRecord[] {
  if (!prev) return [];
  return prev.entries.filter((e) => e.index < change && stream[e.index] === e.block && e.expiresAt > now);
}

/** The tier of the first changed block, as the API names a cache miss. */
function missCause(stable: readonly StreamBlock[], change: number, prev: LastRender | undefined, model: string): RenderPlan['cause'] {
  if (!prev) return null;
  if (prev.model !== undefined && prev.model !== model) return 'model_changed';
  if (change >= prev.stream.length) return null;
  const role = (stable[change] ?? prev.stream[change])!.role;
  return role === 'tools' ? 'tools_changed' : role === 'system' ? 'system_changed' : 'messages_changed';
}

/** The stable stream of a state, where it differs from the previous render, and the entries still usable. */
export interface CacheStanding {
  readonly stream: readonly StreamBlock[];
  readonly change: number;
  readonly entries: readonly CacheEntryRecord[];
}

const standings = new WeakMap<TimelineState, { readonly ctx: PassContext; readonly standing: CacheStanding }>();

/**
 * The stream, first change and valid entries of a state, computed once per
 * state and context: prune, hide and placement all ask for them.
 */
export function cacheStanding(state: TimelineState, ctx: PassContext): CacheStanding {
  const hit = standings.get(state);
  if (hit && hit.ctx.now === ctx.now && hit.ctx.tokens === ctx.tokens && hit.ctx.profile === ctx.profile) return hit.standing;
  const stream = hiddenReplacements(state, ctx);
  const change = firstChange(stream, state.lastRender);
  const standing = { stream, change, entries: validEntries(state.lastRender, stream, change, ctx.now) };
  standings.set(state, { ctx, standing });
  return standing;
}

/** Keeps the ledger small: the entries a lookback could still reach are the newest ones. */
const LEDGER_SIZE = 48;

/**
 * Predicts reads and writes for the placed points, and the ledger after the request.
 */
export function planRequest(
  stream: readonly StreamBlock[],
  stableLength: number,
  points: readonly CachePoint[],
  entries: readonly CacheEntryRecord[],
  profile: ModelProfile,
  now: number,
  change: number,
  prev: LastRender | undefined,
  model: string = profile.id,
): { plan: RenderPlan; entries: CacheEntryRecord[] } {
  const stable = stream.length === stableLength ? stream : stream.slice(0, stableLength);
  const pos = positions(stable);
  const byIndex = new Map(entries.map((e) => [e.index, e]));
  const reach = profile.lookback - 1;
  let read: { point: CachePoint; entry: CacheEntryRecord } | undefined;
  const touched = new Set<CacheEntryRecord>();
  for (const p of points) {
    // Walk back from the point over at most `lookback` positions; the first entry found is the hit.
    for (let i = p.index; i >= 0 && pos[p.index]! - pos[i]! <= reach; i--) {
      const e = byIndex.get(i);
      // Inside a tool_use/tool_result run only the run's last block is a lookback position.
      if (!e || (i !== p.index && i + 1 < pos.length && pos[i + 1] === pos[i])) continue;
      touched.add(e);
      if (!read || e.prefixTokens > read.entry.prefixTokens) read = { point: p, entry: e };
      break;
    }
  }
  const A = read?.entry.prefixTokens ?? 0;
  const written = points.filter((p) => p.prefixTokens >= profile.minCacheableTokens);
  const after = written.filter((p) => p.prefixTokens > A);
  const oneHour = after.filter((p) => p.ttl === '1h').at(-1);
  const B = oneHour?.prefixTokens ?? A;
  const C = after.at(-1)?.prefixTokens ?? A;
  let total = 0;
  for (const b of stream) total += b.tokens;
  const usage: PlannedUsage = {
    input_tokens: total - C,
    cache_read_input_tokens: A,
    cache_creation_input_tokens: C - A,
    cache_creation: { ephemeral_5m_input_tokens: C - B, ephemeral_1h_input_tokens: B - A },
  };
  const cost = promptCost(profile.prices, usageTokens(usage));
  const best = entries.reduce((m, e) => Math.max(m, e.prefixTokens), 0);

  const next = new Map<number, CacheEntryRecord>();
  for (const e of entries) {
    next.set(e.index, touched.has(e) ? { ...e, expiresAt: Math.max(e.expiresAt, now + profile.ttlMs[e.ttl]) } : e);
  }
  // Only points beyond the read are billed as writes; a point at or below it creates
  // no entry of its own (the provider bills no bytes for one, so assume none exists).
  for (const p of after) {
    const old = next.get(p.index);
    const ttl = old && old.ttl === '1h' ? '1h' : p.ttl;
    next.set(p.index, {
      path: p.path,
      index: p.index,
      block: stable[p.index]!,
      prefixTokens: p.prefixTokens,
      ttl,
      expiresAt: Math.max(old?.expiresAt ?? 0, now + profile.ttlMs[p.ttl]),
    });
  }
  const ledger = [...next.values()].sort((a, b) => a.index - b.index).slice(-LEDGER_SIZE);
  const timelineWarm = prev !== undefined && entries.some((e) => e.block.segment !== 'envelope');
  const plan: RenderPlan = {
    warm: timelineWarm,
    firstChange: change,
    ...(change < stable.length && prev && change < prev.stream.length ? { firstChangePath: stable[change]!.path } : {}),
    cause: missCause(stable, change, prev, model),
    ...(read ? { read: { path: read.point.path, tokens: A, entry: read.entry.path } } : {}),
    writes: after.map((p) => ({ path: p.path, ttl: p.ttl, prefixTokens: p.prefixTokens })),
    usage,
    cost,
    bust: best > A,
    ...belowMinimum(points, profile),
  };
  return { plan, entries: ledger };
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
