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
  /**
   * What the API said: its `cache_miss_reason` type, `null` when it found no
   * divergence from the previous request, `'pending'` when the comparison was
   * still running, or its other reasons (`previous_message_not_found`, `unavailable`).
   */
  readonly api: string | null;
  /** Tokens the API says were missed, when it says. */
  readonly missedTokens?: number;
  /**
   * What the plan expected the API to say: its `cause`, or `messages_changed`
   * when only the previous request's volatile tail was replaced (the API
   * compares whole requests; the tail is never cached anyway).
   */
  readonly predicted: string | null;
  /** Whether the two can be compared (the API gave a verdict about this pair of requests). */
  readonly comparable: boolean;
  /** Whether they disagree (only when comparable). */
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
  /** Requests the API's cache diagnostics gave a comparable verdict on (opt-in). */
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
  /** What the API's cache diagnostics should say for this request (see {@link RequestDiagnostics.predicted}). */
  readonly expectedApi: string | null;
  /** Set when diagnostics were asked for: the previous response's id sent (null on the first). */
  readonly diagnostics?: { readonly previousMessageId: string | null };
  /** The prices the render used (custom profiles included). */
  readonly prices: ModelPrices;
}

/** The pending part of a render. */
export function pendingOf(
  r: {
    turn: number;
    round: number;
    at: number;
    model: string;
    tokens: { total: number };
    plan: RenderPlan;
    profile: { prices: ModelPrices };
  },
  context: { readonly previousHadTail?: boolean; readonly diagnostics?: { readonly previousMessageId: string | null } } = {},
): PendingRequest {
  return {
    turn: r.turn,
    round: r.round,
    at: r.at,
    model: r.model,
    localTokens: r.tokens.total,
    predicted: { read: r.plan.usage.cache_read_input_tokens, written: r.plan.usage.cache_creation_input_tokens, cost: r.plan.cost },
    cause: r.plan.cause,
    expectedApi: r.plan.cause ?? (context.previousHadTail ? 'messages_changed' : null),
    ...(context.diagnostics ? { diagnostics: context.diagnostics } : {}),
    prices: r.profile.prices,
  };
}

const COMPARABLE = new Set(['model_changed', 'system_changed', 'tools_changed', 'messages_changed']);

/**
 * The API's verdict in a response (`diagnostics`, see the cache-diagnostics
 * docs): `null` diagnostics on a request that named a previous message means
 * no divergence; an object whose `cache_miss_reason` is null is still pending.
 */
export function diagnosticsOf(pending: PendingRequest, response: unknown): RequestDiagnostics | undefined {
  if (!pending.diagnostics) return undefined;
  const predicted = pending.expectedApi;
  const d = (response as { diagnostics?: { cache_miss_reason?: { type?: string; cache_missed_input_tokens?: number } | null } | null } | null)?.diagnostics;
  if (pending.diagnostics.previousMessageId === null) return { api: null, predicted, comparable: false, disagree: false };
  if (d === undefined || d === null) return { api: null, predicted, comparable: true, disagree: predicted !== null };
  const reason = d.cache_miss_reason;
  if (reason === undefined || reason === null) return { api: 'pending', predicted, comparable: false, disagree: false };
  const api = String(reason.type);
  const comparable = COMPARABLE.has(api);
  return {
    api,
    ...(typeof reason.cache_missed_input_tokens === 'number' ? { missedTokens: reason.cache_missed_input_tokens } : {}),
    predicted,
    comparable,
    disagree: comparable && api !== predicted,
  };
}

/** A request's record from its render and the usage the provider reported (pass the whole response for diagnostics). */
export function requestRecord(index: number, pending: PendingRequest, usage: ReportedUsage, prices: ModelPrices, response?: unknown): RequestRecord {
  const tokens = usageTokens(usage);
  const reported = { ...tokens, cacheWrite: tokens.cacheWrite5m + tokens.cacheWrite1h, output: usage.output_tokens ?? 0 };
  const diagnostics = diagnosticsOf(pending, response);
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
    if (r.diagnostics?.comparable) {
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
  // The first question of a new user whose reads are all 0: say the usual reason, and where the plan says it per request.
  if (records.length > 0 && t.cacheRead === 0 && t.cacheWrite === 0) {
    lines.push(
      "nothing was read from or written to the cache: a prompt shorter than the model's minimum cacheable length " +
        '(512 to 4,096 tokens by model) is not cached; each render says so in plan.belowMinimum',
    );
  }
  return lines.join('\n');
}
