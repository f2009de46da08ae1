/**
 * Prices a trace under cachepoint and under every peer strategy, with the
 * provider cache simulator: the engine's own requests, and plain full-history
 * requests re-marked the way each peer does it, plus the ideal bounds.
 */
import { compareStrategies, simulateAll, type Comparison } from '../sim/index.js';
import type { Baseline } from '../sim/strategies.js';
import { defaultTokenCache } from '../render/context.js';
import { recall } from '../render/hide-block.js';
import { REUSE_MODEL } from '../render/reuse.js';
import { maskedRecalls } from './masked-recalls.js';
import type { ModelProfile } from '../models/profiles.js';
import { idealBound } from '../sim/ideal.js';
import type { SimParams, SimResult } from '../sim/types.js';
import type { ProviderId } from '../models/caching.js';
import { DEFAULT_MODEL } from '../models/profiles.js';
import { toBedrockConverse } from '../providers/bedrock.js';
import { toOpenAIResponses } from '../providers/openai.js';
import { providerProfile } from '../providers/registry.js';
import { withRetention } from '../providers/openai-profile.js';
import { fromBedrockConverse, fromOpenAIResponses } from '../sim/from-provider.js';
import { openAIBaselines } from '../sim/openai-strategies.js';
import type { RecallTally } from '../sim/summary.js';
import type { TraceEvent } from '../trace/types.js';
import { replayAll, type ReplayedRequest, type ReplayOptions } from './replay.js';

/** Options of {@link compareTrace}: replay options plus the provider to price for. */
export interface CompareOptions extends ReplayOptions {
  /**
   * Price for this provider (default `anthropic`): the engine renders with the
   * provider's profile, its requests are mapped to that provider's API and
   * priced under its cache rules, against that provider's peers.
   */
  readonly provider?: ProviderId;
}

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
  compareOptions: CompareOptions = {},
  onProgress?: (done: number) => void,
): Promise<TraceComparison> {
  const { provider = 'anthropic', onWarning, ...rest } = compareOptions;
  // The trace is replayed twice (the engine, then plain for the peers): a warning about it is said once.
  const said = new Set<string>();
  const once =
    onWarning &&
    ((message: string, code: string) => {
      if (said.has(message)) return;
      said.add(message);
      onWarning(message, code);
    });
  const options = await providerReplayOptions(provider, load, { ...rest, ...(once ? { onWarning: once } : {}) });
  const engine: ReplayedRequest[] = [];
  const engineOptions = { ...options, recalls: options.recalls ?? true };
  for await (const r of (await import('./replay.js')).replay(load(), engineOptions)) {
    engine.push(r);
    onProgress?.(engine.length);
  }
  const plain = await replayAll(load(), { ...options, plain: true });
  // Priced with the provider's own profile (which knows both OpenAI lifetimes; each request says which applies).
  const simProfile = provider === 'openai' && options.model ? providerProfile(provider, options.model, options.profiles) : options.profile;
  const sim = simProfile ? { profile: simProfile } : { profiles: profilesFor(engine, options) };
  const engineRequests = engine.map((r) => ({ at: r.at, params: asSimulated(provider, r) }));
  const engineResults = simulateAll(engineRequests, sim);
  const engineIdeal = idealBound(engineRequests, sim).ideal.cost;
  const recalls = recallTally(engine, engineResults);
  const strategies = provider === 'openai' ? openAIBaselines(simProfile as ModelProfile) : undefined;
  const comparison = compareStrategies(
    plain.map((r) => ({ at: r.at, params: r.request })),
    {
      ...sim,
      ...(strategies ? { strategies } : {}),
      extra: [{ id: 'cachepoint', label: `cachepoint (${options.policy ?? 'conservative'})`, results: engineResults, recalls }],
    },
  );
  const charged = engineOptions.recalls ? chargePeerRecalls(comparison, strategies ?? [], plain) : comparison;
  return { ...charged, engine, engineResults, engineIdeal, recalls };
}

/**
 * Replay options for a provider: its profile for the trace's model (or
 * `--model`), and on OpenAI that model's id in the requests. The trace's
 * model comes from its first envelope event when no `model` is given.
 */
export async function providerReplayOptions(
  provider: ProviderId,
  load: () => AsyncIterable<TraceEvent> | Iterable<TraceEvent>,
  options: ReplayOptions,
): Promise<ReplayOptions> {
  if (provider === 'anthropic' || options.profile) return options;
  let model = options.model;
  if (model === undefined) {
    for await (const e of load()) {
      if (e.type === 'envelope') model = e.model;
      break;
    }
  }
  const profile = providerProfile(provider, model ?? DEFAULT_MODEL, options.profiles);
  // OpenAI requests ask for 24h retention where the model has it (asSimulated): render for that lifetime.
  return { ...options, profile: provider === 'openai' ? withRetention(profile, '24h') : profile, model: profile.id };
}

/**
 * What the simulator reads of an engine request on the provider: the
 * provider's own request, converted back (so the mapping's markers and byte
 * layout are what is priced). OpenAI asks for 24h retention where the model
 * has it: it costs nothing extra, and the key is the conversation.
 */
function asSimulated(provider: ProviderId, r: ReplayedRequest): SimParams {
  if (provider === 'anthropic') return r.request;
  const profile = r.rendered.profile;
  if (provider === 'bedrock') return fromBedrockConverse(toBedrockConverse(r.rendered), r.request.model);
  const retention = profile.caching?.kind === 'automatic' ? ('24h' as const) : undefined;
  return fromOpenAIResponses(toOpenAIResponses(r.rendered, { promptCacheKey: 'trace', ...(retention ? { retention } : {}) }), profile);
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

/**
 * Charges masking peers (`Baseline.masks`) the recalls they force, as cachepoint
 * is charged its own: each response that needs a masked result gets one extra
 * round, priced as the peer's next request (it reads the same cached prefix),
 * plus the payloads sent back and written, plus the recall calls' output
 * tokens. An estimate that favours the peer: the round's payloads are not
 * carried by its later requests. Applied whenever the engine's own recalls are
 * counted, so "best peer" is compared with recalls on both sides.
 */
export function chargePeerRecalls(comparison: Comparison, strategies: readonly Baseline[], plain: readonly ReplayedRequest[]): Comparison {
  const masking = strategies.filter((s) => s.masks !== undefined);
  if (masking.length === 0) return comparison;
  const summaries = comparison.summaries.map((summary) => {
    const strategy = masking.find((s) => s.id === summary.id);
    const results = comparison.runs[summary.id];
    if (!strategy || !results) return summary;
    const tally = peerRecalls(plain, results, strategy.masks!);
    const cost = summary.cost + tally.cost;
    // The ratios keep their bases (the no-cache price, the ideal bound): scaled with the cost.
    const scale = summary.cost > 0 ? cost / summary.cost : 1;
    return {
      ...summary,
      cost,
      recalls: tally,
      vsNone: summary.vsNone === null ? null : summary.vsNone * scale,
      vsIdeal: summary.vsIdeal === null ? null : summary.vsIdeal * scale,
    };
  });
  return { ...comparison, summaries };
}

/** The recall rounds masking all but `keep` tool results forces on a session, priced on the peer's own results. */
export function peerRecalls(plain: readonly ReplayedRequest[], results: readonly SimResult[], keep: number): RecallTally {
  const forced = maskedRecalls(plain, keep);
  const tokens = defaultTokenCache();
  let count = 0;
  let outputTokens = 0;
  let outputCost = 0;
  let promptCost = 0;
  for (const round of forced.rounds) {
    const next = plain[round.index + 1]!;
    const prices = next.rendered.profile.prices;
    const state = plain[round.index]!.rendered.state;
    let payload = 0;
    for (const path of round.paths) payload += tokens.tokens(recall(state, path));
    count += round.paths.length;
    const out = round.paths.length * REUSE_MODEL.RECALL_OUTPUT_TOKENS;
    outputTokens += out;
    outputCost += (out * prices.output) / 1e6;
    promptCost += (results[round.index + 1]?.cost?.total ?? 0) + (payload * prices.cacheWrite5m) / 1e6;
  }
  return {
    count,
    rounds: forced.rounds.length,
    traceRequests: plain.length,
    per100: forced.per100,
    outputTokens,
    cost: promptCost + outputCost,
    outputCost,
    byReason: count > 0 ? { mask: count } : {},
  };
}

/** The profiles the replay rendered with (including the fallback for an unknown model), for the simulator. */
function profilesFor(engine: readonly ReplayedRequest[], options: ReplayOptions): Record<string, ModelProfile> {
  const out: Record<string, ModelProfile> = { ...options.profiles };
  for (const r of engine) out[r.request.model] ??= r.rendered.profile;
  return out;
}
