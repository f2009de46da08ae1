/**
 * How a provider caches, as data (see providers/types.ts for the provider
 * tables). Kept in the model layer because every model profile names its
 * provider's rules, and the renderer reads them through the profile.
 * Declarations only.
 */

/** The providers cachepoint maps a rendered stream to. */
export type ProviderId = 'anthropic' | 'bedrock' | 'openai';

/**
 * The cache mechanics of one provider (or one model family of it).
 *
 * - `markers`: explicit cache markers (Anthropic `cache_control`, Bedrock
 *   `cachePoint`, OpenAI GPT-5.6 `prompt_cache_breakpoint`). An entry is
 *   written only at a marker; a marker reads an earlier entry within
 *   `lookback` positions. `implicit` adds the provider's own marker on the
 *   last block unless the request turns it off.
 * - `automatic`: prefix caching without markers (OpenAI before GPT-5.6): every
 *   request's whole prompt becomes readable; a later request reads the longest
 *   cached prefix, counted in `granularity`-token steps from `minTokens`.
 *   No write premium. Requests are routed by a hash of the first
 *   `routingPrefixTokens` tokens plus the routing key.
 */
export type CachingRules =
  | {
      readonly kind: 'markers';
      readonly maxMarkers: number;
      readonly lookback: number;
      /** Whether the provider adds a marker of its own on the newest block (OpenAI GPT-5.6 implicit mode). */
      readonly implicit: boolean;
    }
  | {
      readonly kind: 'automatic';
      readonly granularity: number;
      readonly routingPrefixTokens: number;
      /** Requests per minute per prefix and key above which some overflow to other machines and miss. */
      readonly overflowPerMinute: number;
    };
