/**
 * Per-request cache figures and their totals: shared by `Session` and the
 * drop-in `prepare` door (its conversations keep the same records).
 */
import type { ModelPrices } from '../models/profiles.js';
import { promptCost, usageTokens, type ReportedUsage } from '../models/pricing.js';
import type { RenderPlan } from '../render/types.js';

/** Cache figures of one request: what the provider reported, priced, next to what the plan predicted. */
export interface RequestRecord {
  readonly index: number;
  readonly turn: number;
  readonly round: number;
  readonly at: number;
  readonly reported: {
    readonly input: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly cacheWrite5m: number;
    readonly cacheWrite1h: number;
    readonly output: number;
  };
  /** Input-side cost in dollars, from the reported usage and the model's prices. */
  readonly cost: number;
  /** What the render's plan predicted (tokens read / written) for comparison. */
  readonly predicted: { readonly read: number; readonly written: number; readonly cost: number };
  /**
   * The API's own cache diagnostics for this request, when they were asked for
   * (opt-in): its miss reason next to the plan's predicted cause.
   */
  readonly diagnostics?: RequestDiagnostics;
}

/** The API's cache diagnostics next to the plan's prediction. */
export interface RequestDiagnostics {
  /** What the API said (`cache_miss_reason`), null when it reported none. */
  readonly api: string | null;
  /** What the plan predicted (`plan.cause`), null when it expected the prefix to carry over. */
  readonly predicted: string | null;
  /** Whether they disagree. */
  readonly disagree: boolean;
}

/** Totals over a session or conversation. */
export interface SessionTotals {
  readonly requests: number;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  /** Input-side dollars actually billed. */
  readonly cost: number;
  /** What the same input would have cost with no caching at all. */
  readonly uncachedCost: number;
  /** Share of prompt tokens read from cache. */
  readonly hitRatio: number;
  /** Requests that came back with API cache diagnostics (opt-in). */
  readonly diagnosed: number;
  /** Of those, how often the API's miss reason differed from the plan's predicted cause. */
  readonly disagreements: number;
}

/** What a request's render said, kept until its usage arrives. */
export interface PendingRequest {
  readonly turn: number;
  readonly round: number;
  readonly at: number;
  readonly model: string;
  /** Local token estimate of the whole request (for calibration). */
  readonly localTokens: number;
  readonly predicted: RequestRecord['predicted'];
  readonly cause: RenderPlan['cause'];
  /** The prices the render used (custom profiles included). */
  readonly prices: ModelPrices;
}

/** The pending part of a render. */
export function pendingOf(r: {
  turn: number;
  round: number;
  at: number;
  model: string;
  tokens: { total: number };
  plan: RenderPlan;
  profile: { prices: ModelPrices };
}): PendingRequest {
  return {
    turn: r.turn,
    round: r.round,
    at: r.at,
    model: r.model,
    localTokens: r.tokens.total,
    predicted: { read: r.plan.usage.cache_read_input_tokens, written: r.plan.usage.cache_creation_input_tokens, cost: r.plan.cost },
    cause: r.plan.cause,
    prices: r.profile.prices,
  };
}

/** The cache miss reason in a response's diagnostics, if the API sent any (`undefined`: no diagnostics at all). */
export function apiMissReason(message: unknown): string | null | undefined {
  const d = (message as { diagnostics?: { cache_miss_reason?: unknown } | null } | null)?.diagnostics;
  if (d === undefined || d === null) return undefined;
  const reason = d.cache_miss_reason;
  if (reason === undefined || reason === null) return null;
  return typeof reason === 'string' ? reason : ((reason as { type?: string }).type ?? JSON.stringify(reason));
}

/** A request's record from its render and the usage the provider reported. */
export function requestRecord(index: number, pending: PendingRequest, usage: ReportedUsage, prices: ModelPrices, apiReason?: string | null): RequestRecord {
  const tokens = usageTokens(usage);
  const reported = { ...tokens, cacheWrite: tokens.cacheWrite5m + tokens.cacheWrite1h, output: usage.output_tokens ?? 0 };
  const diagnostics: RequestDiagnostics | undefined =
    apiReason === undefined ? undefined : { api: apiReason, predicted: pending.cause, disagree: apiReason !== pending.cause };
  return {
    index,
    turn: pending.turn,
    round: pending.round,
    at: pending.at,
    reported,
    cost: promptCost(prices, tokens),
    predicted: pending.predicted,
    ...(diagnostics ? { diagnostics } : {}),
  };
}

/** Totals of request records. */
export function totalsOf(records: readonly RequestRecord[], prices: ModelPrices): SessionTotals {
  let input = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let output = 0;
  let cost = 0;
  let diagnosed = 0;
  let disagreements = 0;
  for (const r of records) {
    input += r.reported.input;
    cacheRead += r.reported.cacheRead;
    cacheWrite += r.reported.cacheWrite;
    output += r.reported.output;
    cost += r.cost;
    if (r.diagnostics) {
      diagnosed++;
      if (r.diagnostics.disagree) disagreements++;
    }
  }
  const prompt = input + cacheRead + cacheWrite;
  return {
    requests: records.length,
    input,
    cacheRead,
    cacheWrite,
    output,
    cost,
    uncachedCost: (prompt * prices.input) / 1e6,
    hitRatio: prompt > 0 ? cacheRead / prompt : 0,
    diagnosed,
    disagreements,
  };
}

/** A printable table of request records and their totals. */
export function formatRequests(records: readonly RequestRecord[], t: SessionTotals): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = ['  #  turn.round      read     write  uncached      cost'];
  for (const r of records) {
    lines.push(
      `${String(r.index).padStart(3)}  ${`${r.turn}.${r.round}`.padEnd(10)} ${n(r.reported.cacheRead).padStart(9)} ${n(r.reported.cacheWrite).padStart(9)} ${n(r.reported.input).padStart(9)}  $${r.cost.toFixed(5)}`,
    );
  }
  lines.push(
    `total: ${n(t.cacheRead)} read, ${n(t.cacheWrite)} written, ${n(t.input)} uncached; hit ratio ${(t.hitRatio * 100).toFixed(1)}%; ` +
      `$${t.cost.toFixed(4)} vs $${t.uncachedCost.toFixed(4)} without caching (${((1 - t.cost / Math.max(t.uncachedCost, 1e-12)) * 100).toFixed(1)}% saved)`,
  );
  if (t.diagnosed > 0) lines.push(`API cache diagnostics: ${t.diagnosed} requests, ${t.disagreements} disagreed with the plan's predicted cause`);
  return lines.join('\n');
}
