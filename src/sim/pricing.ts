/**
 * Prices a usage with a model profile's prices ($ per million tokens). Output
 * tokens are priced separately: they do not depend on caching, so the
 * strategy comparison leaves them out of `total`.
 */
import type { ModelProfile } from '../models/profiles.js';
import type { SimCost, SimUsage } from './types.js';

const PER_TOKEN = 1 / 1_000_000;

/**
 * The price of one request's usage.
 *
 * @example
 * priceUsage(resolveProfile('claude-sonnet-4-6'), usage).total; // dollars, prompt side only
 */
export function priceUsage(profile: ModelProfile, usage: SimUsage): SimCost {
  const p = profile.prices;
  const input = usage.input_tokens * p.input * PER_TOKEN;
  const cacheWrite5m = usage.cache_creation.ephemeral_5m_input_tokens * p.cacheWrite5m * PER_TOKEN;
  const cacheWrite1h = usage.cache_creation.ephemeral_1h_input_tokens * p.cacheWrite1h * PER_TOKEN;
  const cacheRead = usage.cache_read_input_tokens * p.cacheRead * PER_TOKEN;
  return {
    input,
    cacheWrite5m,
    cacheWrite1h,
    cacheRead,
    total: input + cacheWrite5m + cacheWrite1h + cacheRead,
    output: usage.output_tokens * p.output * PER_TOKEN,
  };
}

/** Builds a usage from the billing split (A/B/C of the docs); `output` defaults to 0. */
export function makeUsage(read: number, write1h: number, write5m: number, input: number, output = 0): SimUsage {
  return {
    input_tokens: input,
    cache_creation_input_tokens: write5m + write1h,
    cache_read_input_tokens: read,
    cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
    output_tokens: output,
  };
}
