/**
 * Dollars from token counts and a model's prices: the one place the cost of a
 * request is computed (render plans, the cost gate, sessions, summarizers and
 * the simulator all price through it).
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

/** Prompt-side dollars (output is priced separately). */
export function promptCost(prices: ModelPrices, t: PromptTokens): number {
  return (t.input * prices.input + t.cacheRead * prices.cacheRead + t.cacheWrite5m * prices.cacheWrite5m + t.cacheWrite1h * prices.cacheWrite1h) / 1e6;
}

/** The API's `usage` object (5m/1h split when reported; all 5m otherwise) as {@link PromptTokens}. */
export function usageTokens(usage: {
  readonly input_tokens: number;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
  readonly cache_creation?: { readonly ephemeral_5m_input_tokens?: number; readonly ephemeral_1h_input_tokens?: number } | null;
}): PromptTokens {
  const write = usage.cache_creation_input_tokens ?? 0;
  const write1h = usage.cache_creation?.ephemeral_1h_input_tokens ?? 0;
  return { input: usage.input_tokens, cacheRead: usage.cache_read_input_tokens ?? 0, cacheWrite5m: write - write1h, cacheWrite1h: write1h };
}
