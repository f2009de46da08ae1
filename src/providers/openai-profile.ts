/**
 * OpenAI's prompt cache as data: the rules of the two generations and the
 * model table. Every figure names its source and the day it was checked; the
 * ones the official pages do not state are marked as estimates (see
 * docs/providers.md for the reasoning behind each).
 *
 * Two generations:
 * - before GPT-5.6: automatic prefix caching, no markers, no write premium,
 *   hits in 128-token steps from 1,024 tokens, routing by a hash of the first
 *   ~256 tokens plus `prompt_cache_key`;
 * - GPT-5.6 and later: markers (`prompt_cache_breakpoint` on content
 *   parts, at most four written per request, matching against the latest 80
 *   markers with no lookback limit), writes at 1.25× input, 30-minute
 *   minimum lifetime.
 */
import type { ModelPrices, ModelProfile } from '../models/profiles.js';
import type { CachingRules } from '../models/caching.js';
import type { ProviderProfile, Sourced } from './types.js';

const CHECKED = '2026-11-30';
const GUIDE = 'https://developers.openai.com/api/docs/guides/prompt-caching';
const SDK = 'openai@6.49.0 type definitions (ResponseCreateParams, ChatCompletionCreateParams)';

/** Before GPT-5.6: automatic prefix caching. */
export const OPENAI_AUTOMATIC: CachingRules = Object.freeze({
  kind: 'automatic',
  granularity: 128,
  routingPrefixTokens: 256,
  overflowPerMinute: 15,
});

/** GPT-5.6 and later: explicit markers (we turn the implicit one off: see toOpenAIResponses). */
export const OPENAI_MARKERS: CachingRules = Object.freeze({
  kind: 'markers',
  maxMarkers: 4,
  // "OpenAI considers up to the latest 80 breakpoints in the conversation, without a
  // content-block lookback limit": no window in positions.
  lookback: 1_000_000,
  implicit: true,
});

const MINUTE = 60_000;
/** In-memory retention: "cleared after 5–10 minutes of inactivity, always within one hour": we take the low end. */
const IN_MEMORY_MS = 5 * MINUTE;
/** Extended retention keeps prefixes "up to a maximum of 24 hours"; no minimum is stated: we assume one hour. */
const EXTENDED_MS = 60 * MINUTE;
/** GPT-5.6: "The minimum lifetime applied to every … breakpoint … Defaults to `30m`". */
const MARKER_MS = 30 * MINUTE;

const dollars = (x: number): number => Math.round(x * 1e9) / 1e9;

function model(
  id: string,
  prices: { input: number; cached: number; output: number },
  contextWindow: number,
  generation: 'automatic' | 'markers',
): ModelProfile {
  const p: ModelPrices = Object.freeze({
    input: prices.input,
    // Automatic caching has no write fee: a "write" is uncached input. GPT-5.6: 1.25×.
    cacheWrite5m: generation === 'automatic' ? prices.input : dollars(prices.input * 1.25),
    cacheWrite1h: generation === 'automatic' ? prices.input : dollars(prices.input * 1.25),
    cacheRead: prices.cached,
    output: prices.output,
  });
  const automatic = generation === 'automatic';
  return Object.freeze({
    id,
    contextWindow,
    minCacheableTokens: 1024,
    // '5m' is the default retention class, '1h' the longer one the request can ask for.
    ttlMs: Object.freeze(automatic ? { '5m': IN_MEMORY_MS, '1h': EXTENDED_MS } : { '5m': MARKER_MS, '1h': MARKER_MS }),
    prices: p,
    keepsThinking: true,
    // No lookback window on either generation (automatic caching has no markers at all).
    lookback: 1_000_000,
    provider: 'openai',
    caching: automatic ? OPENAI_AUTOMATIC : OPENAI_MARKERS,
  });
}

const W400K = 400_000;

/** OpenAI models by API id ($ per million tokens). Dated ids resolve to their family. */
export const OPENAI_MODELS: Readonly<Record<string, ModelProfile>> = Object.freeze(
  Object.fromEntries(
    [
      model('gpt-5.6-terra', { input: 2.5, cached: 0.25, output: 15 }, W400K, 'markers'),
      model('gpt-5.6-sol', { input: 5, cached: 0.5, output: 30 }, W400K, 'markers'),
      model('gpt-5.6-luna', { input: 0.75, cached: 0.075, output: 4.5 }, W400K, 'markers'),
      model('gpt-5.5', { input: 5, cached: 0.5, output: 30 }, W400K, 'automatic'),
      model('gpt-5.4', { input: 2.5, cached: 0.25, output: 15 }, W400K, 'automatic'),
      model('gpt-5.4-mini', { input: 0.75, cached: 0.075, output: 4.5 }, W400K, 'automatic'),
      model('gpt-5.2', { input: 1.75, cached: 0.175, output: 14 }, W400K, 'automatic'),
      model('gpt-5.1', { input: 1.25, cached: 0.125, output: 10 }, W400K, 'automatic'),
      model('gpt-5', { input: 1.25, cached: 0.125, output: 10 }, W400K, 'automatic'),
      model('gpt-5-mini', { input: 0.25, cached: 0.025, output: 2 }, W400K, 'automatic'),
      model('gpt-4.1', { input: 2, cached: 0.5, output: 8 }, 1_047_576, 'automatic'),
      model('gpt-4o', { input: 2.5, cached: 1.25, output: 10 }, 128_000, 'automatic'),
    ].map((m) => [m.id, m]),
  ),
);

const SOURCES: Readonly<Record<string, Sourced>> = Object.freeze({
  minimum: { source: `${GUIDE} ("enabled automatically for prompts that are 1024 tokens or longer")`, checked: CHECKED },
  granularity: {
    source: `${GUIDE}; developers.openai.com/cookbook/examples/prompt_caching_201 ("a match until the first mismatched token in 128 token blocks")`,
    checked: CHECKED,
  },
  routing: {
    source: `${GUIDE} (hash of the initial prefix, typically the first 256 tokens, combined with prompt_cache_key; ~15 requests per minute per prefix and key before overflow)`,
    checked: CHECKED,
  },
  retention: {
    source: `${GUIDE} (in-memory: 5–10 minutes of inactivity, at most one hour; prompt_cache_retention '24h': up to 24 hours); ${SDK}`,
    checked: CHECKED,
    estimate: 'we model in-memory as 5 minutes idle (the low end) and 24h retention as 1 hour idle (no minimum is stated)',
  },
  markers: {
    source: `${SDK}: prompt_cache_options { mode: 'implicit' | 'explicit', ttl: '30m' }, prompt_cache_breakpoint { mode: 'explicit' } on content parts; "Each request can write up to four breakpoints … up to the latest 80 breakpoints … without a content-block lookback limit"`,
    checked: CHECKED,
  },
  writePrice: {
    source: `${GUIDE} ("Cache writes have no additional fee on models before the GPT-5.6 family. For GPT-5.6 models and later model families, cache writes cost 1.25× the uncached input token rate")`,
    checked: CHECKED,
  },
  prices: {
    source: 'developers.openai.com/api/docs/pricing as reported by secondary sources (api-evangelist 2026-11-06, apiyi June 2026, adk-model)',
    checked: CHECKED,
    estimate:
      'the official pricing page was not in the stored corpus: gpt-5.x input and cached prices from secondary sources; output prices of gpt-5.5, gpt-5.2, gpt-5-mini and every gpt-5.6 price are estimates (sol priced as gpt-5.5, luna as gpt-5.4-mini)',
  },
  contextWindow: { source: 'model pages as reported by secondary sources', checked: CHECKED, estimate: '400k for the gpt-5.x family' },
});

/** The OpenAI provider profile. */
export const OPENAI: ProviderProfile = Object.freeze({
  id: 'openai',
  name: 'OpenAI (Responses and Chat Completions)',
  models: OPENAI_MODELS,
  sources: SOURCES,
});

/**
 * The profile to *render* with when requests ask for `prompt_cache_retention`:
 * with '24h' the cache stays warm for the extended lifetime, so the
 * cold-window prune must wait for that, not for the in-memory 5 minutes.
 * Price and simulate with the profile itself (it knows both lifetimes; the
 * request says which applies).
 *
 * @example
 * render(state, { profile: withRetention(OPENAI_MODELS['gpt-5.4']!, '24h') });
 */
export function withRetention(profile: ModelProfile, retention: 'in_memory' | '24h'): ModelProfile {
  if (retention === 'in_memory' || profile.caching?.kind !== 'automatic') return profile;
  return Object.freeze({ ...profile, ttlMs: Object.freeze({ '5m': profile.ttlMs['1h'], '1h': profile.ttlMs['1h'] }) });
}
