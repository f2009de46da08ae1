/**
 * Prices a trace under cachepoint and under every peer strategy, with the
 * provider cache simulator: the engine's own requests, and plain full-history
 * requests re-marked the way each peer does it, plus the ideal bounds.
 */
import { compareStrategies, simulateAll, type Comparison } from '../sim/index.js';
import type { ModelProfile } from '../models/profiles.js';
import { idealBound } from '../sim/ideal.js';
import type { SimResult } from '../sim/types.js';
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
  for await (const r of (await import('./replay.js')).replay(load(), options)) {
    engine.push(r);
    onProgress?.(engine.length);
  }
  const plain = await replayAll(load(), { ...options, plain: true });
  const sim = options.profile ? { profile: options.profile } : { profiles: profilesFor(engine, options) };
  const engineRequests = engine.map((r) => ({ at: r.at, params: r.request }));
  const engineResults = simulateAll(engineRequests, sim);
  const engineIdeal = idealBound(engineRequests, sim).ideal.cost;
  const comparison = compareStrategies(
    plain.map((r) => ({ at: r.at, params: r.request })),
    { ...sim, extra: [{ id: 'cachepoint', label: `cachepoint (${options.policy ?? 'conservative'})`, results: engineResults }] },
  );
  return { ...comparison, engine, engineResults, engineIdeal };
}

/** The profiles the replay rendered with (including the fallback for an unknown model), for the simulator. */
function profilesFor(engine: readonly ReplayedRequest[], options: ReplayOptions): Record<string, ModelProfile> {
  const out: Record<string, ModelProfile> = { ...options.profiles };
  for (const r of engine) out[r.request.model] ??= r.rendered.profile;
  return out;
}
