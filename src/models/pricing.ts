/**
 * Dollars from token counts and a model's prices: the one place the cost of a
 * request is computed. Render plans, the cost gate, sessions, summarizers and
 * the provider cache simulator all price through {@link priceTokens}.
 */
import type { ModelPrices } from './profiles.js';

/** Token counts of one request's prompt, split the way the API bills them. */
export interface PromptTokens {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
}

/** The input side of the API's `usage`, as the provider reports it (and as plans and simulators predict it). */
export interface PromptUsage {
  readonly input_tokens: number;
  readonly cache_creation_input_tokens: number;
  readonly cache_read_input_tokens: number;
  /** The split of `cache_creation_input_tokens` by TTL; the two add up to it. */
  readonly cache_creation: { readonly ephemeral_5m_input_tokens: number; readonly ephemeral_1h_input_tokens: number };
}

/** The API's `usage` as it arrives: the cache fields may be absent or null (then 0; an unsplit write is 5m). */
export interface ReportedUsage {
  readonly input_tokens: number;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
  readonly cache_creation?: { readonly ephemeral_5m_input_tokens?: number; readonly ephemeral_1h_input_tokens?: number } | null;
  readonly output_tokens?: number;
}

/** The price of one request in US dollars, by usage field. */
export interface UsageCost {
  readonly input: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly cacheRead: number;
  /** input + writes + read: the prompt's price, the figure strategies and plans are compared on. */
  readonly total: number;
  /** Output tokens × output price (0 when no output count was given); not in `total`. */
  readonly output: number;
}

const PER_TOKEN = 1 / 1_000_000;

/**
 * The price of a prompt split by billing field, plus the output (`outputTokens`, default 0).
 *
 * @example
 * priceTokens(resolveProfile('claude-sonnet-4-6').prices, { input: 1000, cacheRead: 9000, cacheWrite5m: 0, cacheWrite1h: 0 }).total;
 */
export function priceTokens(prices: ModelPrices, t: PromptTokens, outputTokens = 0): UsageCost {
  // Long-context pricing (1M-window beta profiles): over the threshold, the whole request is billed at the premium.
  const long = prices.longContext;
  if (long !== undefined && t.input + t.cacheRead + t.cacheWrite5m + t.cacheWrite1h > long.aboveInputTokens) prices = long;
  const input = t.input * prices.input * PER_TOKEN;
  const cacheWrite5m = t.cacheWrite5m * prices.cacheWrite5m * PER_TOKEN;
  const cacheWrite1h = t.cacheWrite1h * prices.cacheWrite1h * PER_TOKEN;
  const cacheRead = t.cacheRead * prices.cacheRead * PER_TOKEN;
  return {
    input,
    cacheWrite5m,
    cacheWrite1h,
    cacheRead,
    total: input + cacheWrite5m + cacheWrite1h + cacheRead,
    output: outputTokens * prices.output * PER_TOKEN,
  };
}

/** Prompt-side dollars (output is priced separately): `priceTokens(prices, t).total`. */
export function promptCost(prices: ModelPrices, t: PromptTokens): number {
  return priceTokens(prices, t).total;
}

/** The price of a `usage` object (reported by the API, predicted by a plan or by the simulator), output included. */
export function priceUsage(prices: ModelPrices, usage: ReportedUsage): UsageCost {
  return priceTokens(prices, usageTokens(usage), usage.output_tokens ?? 0);
}

/** The API's `usage` object (5m/1h split when reported; all 5m otherwise) as {@link PromptTokens}. */
export function usageTokens(usage: ReportedUsage): PromptTokens {
  const write = usage.cache_creation_input_tokens ?? 0;
  const write1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  return { input: usage.input_tokens, cacheRead: usage.cache_read_input_tokens ?? 0, cacheWrite5m: write - write1h, cacheWrite1h: write1h };
}
