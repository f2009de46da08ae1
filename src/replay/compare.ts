/**
 * Prices a trace under cachepoint and under every peer strategy, with the
 * provider cache simulator: the engine's own requests, and plain full-history
 * requests re-marked the way each peer does it, plus the ideal bounds.
 */
import { compareStrategies, simulateAll, type Comparison } from '../sim/index.js';
import type { ModelProfile } from '../models/profiles.js';
import { idealBound } from '../sim/ideal.js';
import type { SimResult } from '../sim/types.js';
import type { RecallTally } from '../sim/summary.js';
import type { TraceEvent } from '../trace/types.js';
import { replayAll, type ReplayedRequest, type ReplayOptions } from './replay.js';

/** Everything `cachepoint simulate` reports. */
export interface TraceComparison extends Comparison {
  /** The engine's requests, as replayed. */
  readonly engine: readonly ReplayedRequest[];
  /** The simulator's verdict on each engine request. */
  readonly engineResults: readonly SimResult[];
  /** The ideal bound of the engine's own requests (same bytes, clairvoyant cache). */
  readonly engineIdeal: number;
  /** Forced recalls of the engine's replay (zero counts with `recalls: false`). */
  readonly recalls: RecallTally;
}

/**
 * Replays a trace twice (engine, plain) and prices both.
 *
 * @param load returns the trace's events (called twice; a file reader or an array)
 */
export async function compareTrace(
  load: () => AsyncIterable<TraceEvent> | Iterable<TraceEvent>,
  options: ReplayOptions = {},
  onProgress?: (done: number) => void,
): Promise<TraceComparison> {
  const engine: ReplayedRequest[] = [];
  const engineOptions = { ...options, recalls: options.recalls ?? true };
  for await (const r of (await import('./replay.js')).replay(load(), engineOptions)) {
    engine.push(r);
    onProgress?.(engine.length);
  }
  const plain = await replayAll(load(), { ...options, plain: true });
  const sim = options.profile ? { profile: options.profile } : { profiles: profilesFor(engine, options) };
  const engineRequests = engine.map((r) => ({ at: r.at, params: r.request }));
  const engineResults = simulateAll(engineRequests, sim);
  const engineIdeal = idealBound(engineRequests, sim).ideal.cost;
  const recalls = recallTally(engine, engineResults);
  const comparison = compareStrategies(
    plain.map((r) => ({ at: r.at, params: r.request })),
    { ...sim, extra: [{ id: 'cachepoint', label: `cachepoint (${options.policy ?? 'conservative'})`, results: engineResults, recalls }] },
  );
  return { ...comparison, engine, engineResults, engineIdeal, recalls };
}

/** Counts and prices the recall rounds a replay inserted (requests marked `forced`). */
export function recallTally(engine: readonly ReplayedRequest[], results: readonly SimResult[]): RecallTally {
  let count = 0;
  let rounds = 0;
  let outputTokens = 0;
  let outputCost = 0;
  let promptCost = 0;
  const byReason: Record<string, number> = {};
  engine.forEach((r, i) => {
    if (!r.forced) return;
    rounds += 1;
    count += r.forced.length;
    for (const f of r.forced) byReason[f.removedBy] = (byReason[f.removedBy] ?? 0) + 1;
    const out = r.recallOutputTokens ?? 0;
    outputTokens += out;
    outputCost += (out * r.rendered.profile.prices.output) / 1e6;
    promptCost += results[i]?.cost?.total ?? 0;
  });
  const traceRequests = engine.length - rounds;
  return {
    count,
    rounds,
    traceRequests,
    per100: traceRequests > 0 ? (100 * count) / traceRequests : 0,
    outputTokens,
    cost: promptCost + outputCost,
    outputCost,
    byReason,
  };
}

/** The profiles the replay rendered with (including the fallback for an unknown model), for the simulator. */
function profilesFor(engine: readonly ReplayedRequest[], options: ReplayOptions): Record<string, ModelProfile> {
  const out: Record<string, ModelProfile> = { ...options.profiles };
  for (const r of engine) out[r.request.model] ??= r.rendered.profile;
  return out;
}
