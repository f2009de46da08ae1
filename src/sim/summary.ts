/**
 * Totals and comparisons: one session priced under every baseline, the ideal
 * bound, and any extra runs (e.g. cachepoint's own requests), each as cost
 * relative to no caching and to the ideal.
 */
import { BlockTokenCache } from '../tokens/counter.js';
import { idealBound, type IdealRun } from './ideal.js';
import { BlockMemo } from './prefix.js';
import { CacheSimulator, simulateAll, type SimulatorOptions } from './simulator.js';
import { BASELINES, type Baseline } from './strategies.js';
import type { SimRequest, SimResult } from './types.js';

// TYPES

/** Token and cost totals of a run of requests. */
export interface RunTotals {
  readonly requests: number;
  /** Requests the simulated API refused (priced 0; they would have failed). */
  readonly rejected: number;
  readonly busts: number;
  readonly missedTokens: number;
  readonly totalTokens: number;
  readonly inputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWrite5mTokens: number;
  readonly cacheWrite1hTokens: number;
  /** Prompt cost in dollars (output excluded). */
  readonly cost: number;
}

/**
 * The forced recalls of a replay (src/replay/recalls.ts): payloads a later call
 * needed while they were removed, each read back in an inserted round.
 */
export interface RecallTally {
  /** Payloads read back (forced recalls). */
  readonly count: number;
  /** Inserted recall rounds (extra requests; one round recalls every payload one response needs). */
  readonly rounds: number;
  /** Requests of the trace itself, without the inserted ones. */
  readonly traceRequests: number;
  /** count ÷ traceRequests × 100. */
  readonly per100: number;
  /** Output tokens of the recall calls. */
  readonly outputTokens: number;
  /** Dollars: the inserted requests' prompt cost plus the recall calls' output tokens. */
  readonly cost: number;
  /** Of `cost`, the output tokens' part (added to the run's prompt cost in its total). */
  readonly outputCost: number;
  /** How the recalled payloads had been removed: `economy` (a warm prune), `prune` (a cold one), `agent` (a hide), `compact`. */
  readonly byReason: Readonly<Record<string, number>>;
}

/** One row of a comparison. */
export interface StrategySummary extends RunTotals {
  readonly id: string;
  readonly label: string;
  /**
   * Forced recalls of this run (cachepoint's; peers send the full history and
   * force none). When present, `cost` includes them: the inserted requests are
   * among the run's requests, and their output tokens are added.
   */
  readonly recalls?: RecallTally;
  /** cost ÷ cost of `none` (null when `none` costs 0). */
  readonly vsNone: number | null;
  /** cost ÷ cost of `ideal` (null when the ideal costs 0). */
  readonly vsIdeal: number | null;
}

/** A run to add to a comparison next to the baselines. */
export interface ExtraRun {
  readonly id: string;
  readonly label: string;
  readonly results: readonly SimResult[];
  /** Its forced recalls, when the run inserted recall rounds. */
  readonly recalls?: RecallTally;
}

/** The result of {@link compareStrategies}. */
export interface Comparison {
  /** Baselines, extra runs, then `ideal_5m` and `ideal`. */
  readonly summaries: readonly StrategySummary[];
  /** Per-request results of each baseline and extra run, by id. */
  readonly runs: Readonly<Record<string, readonly SimResult[]>>;
  readonly ideal: IdealRun;
  readonly ideal5m: IdealRun;
}

// IMPLEMENTATION

/** Sums a run's usage and cost. */
export function totalsOf(results: readonly SimResult[]): RunTotals {
  const t = {
    requests: results.length,
    rejected: 0,
    busts: 0,
    missedTokens: 0,
    totalTokens: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    cost: 0,
  };
  for (const r of results) {
    if (r.rejected) {
      t.rejected++;
      continue;
    }
    const u = r.usage;
    t.totalTokens += r.explain.totalTokens;
    t.inputTokens += u.input_tokens;
    t.cacheReadTokens += u.cache_read_input_tokens;
    t.cacheWrite5mTokens += u.cache_creation.ephemeral_5m_input_tokens;
    t.cacheWrite1hTokens += u.cache_creation.ephemeral_1h_input_tokens;
    t.cost += r.cost.total;
    if (r.explain.bust) {
      t.busts++;
      t.missedTokens += r.explain.missedTokens;
    }
  }
  return t;
}

function idealTotals(run: IdealRun): RunTotals {
  const sum = (f: (r: IdealRun['requests'][number]) => number): number => run.requests.reduce((a, r) => a + f(r), 0);
  return {
    requests: run.requests.length,
    rejected: 0,
    busts: 0,
    missedTokens: 0,
    totalTokens: sum((r) => r.totalTokens),
    inputTokens: sum((r) => r.input),
    cacheReadTokens: sum((r) => r.read),
    cacheWrite5mTokens: sum((r) => r.write5m),
    cacheWrite1hTokens: sum((r) => r.write1h),
    cost: run.cost,
  };
}

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

/**
 * Prices one session under every baseline (or the given ones), the extra runs and the ideal bound.
 *
 * @example
 * const { summaries } = compareStrategies(requests);
 * console.log(formatTotals(summaries));
 */
export function compareStrategies(
  requests: readonly SimRequest[],
  options: SimulatorOptions & { readonly strategies?: readonly Baseline[]; readonly extra?: readonly ExtraRun[] } = {},
): Comparison {
  const strategies = options.strategies ?? BASELINES;
  // One identity/token memo for every pass: the strategies only move markers.
  options = { ...options, blockMemo: options.blockMemo ?? new BlockMemo(options.countTokens ?? defaultCountTokens()) };
  const runs: Record<string, readonly SimResult[]> = {};
  const rows: { id: string; label: string; totals: RunTotals; recalls?: RecallTally }[] = [];
  for (const s of strategies) {
    const results = simulateAll(
      requests.map((r) => ({ ...r, params: s.apply(r.params) })),
      options,
    );
    runs[s.id] = results;
    rows.push({ id: s.id, label: s.label, totals: totalsOf(results) });
  }
  for (const e of options.extra ?? []) {
    runs[e.id] = e.results;
    const totals = totalsOf(e.results);
    rows.push({
      id: e.id,
      label: e.label,
      totals: e.recalls ? { ...totals, cost: totals.cost + e.recalls.outputCost } : totals,
      ...(e.recalls ? { recalls: e.recalls } : {}),
    });
  }
  const { ideal, ideal5m } = idealBound(requests, options);
  rows.push({ id: 'ideal_5m', label: 'ideal bound, 5m writes only', totals: idealTotals(ideal5m) });
  rows.push({ id: 'ideal', label: 'ideal bound', totals: idealTotals(ideal) });

  const none = rows.find((r) => r.id === 'none')?.totals.cost ?? requestsAsInput(requests, options);
  const summaries = rows.map(
    (r): StrategySummary => ({
      id: r.id,
      label: r.label,
      ...r.totals,
      ...(r.recalls ? { recalls: r.recalls } : {}),
      vsNone: ratio(r.totals.cost, none),
      vsIdeal: ratio(r.totals.cost, ideal.cost),
    }),
  );
  return { summaries, runs, ideal, ideal5m };
}

/** Every token at the input price: what the session costs with no cache at all (automatic caching cannot be turned off, so this is priced, not simulated). */
function requestsAsInput(requests: readonly SimRequest[], options: SimulatorOptions): number {
  const sim = new CacheSimulator(options);
  return requests.reduce((sum, r) => sum + (sim.prefixOf(r.params).totalTokens * sim.profileFor(r.params.model).prices.input) / 1e6, 0);
}

function defaultCountTokens(): (block: unknown) => number {
  const cache = new BlockTokenCache();
  return (block) => cache.tokens(block);
}
