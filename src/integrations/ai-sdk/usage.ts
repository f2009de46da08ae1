/**
 * The provider's cache usage, read back from an AI SDK result. The Anthropic
 * provider (and its Bedrock and Vertex variants, which reuse it) puts the API's
 * raw `usage` under `providerMetadata.anthropic.usage`, with the 5-minute /
 * 1-hour split of cache writes; the standardized `usage` is the fallback.
 *
 * The standardized usage differs by AI SDK major: ai 6 and 7 (LanguageModelV3 /
 * V4) give `inputTokens: { noCache, cacheRead, cacheWrite }` and
 * `outputTokens: { total }`; ai 5 (V2) gives flat numbers, any of them
 * `undefined`, without cache writes and without saying whether `inputTokens`
 * counts the cached ones (providers differ), so a V2 usage is read only for a
 * provider whose meaning is known, with the cache writes from its metadata
 * (read from the providers' code, 2026-12-01):
 * - `@ai-sdk/openai` 2.x: `inputTokens` is the whole prompt (`prompt_tokens` /
 *   `input_tokens`), `cachedInputTokens` its cached part, and GPT-5.6's writes are
 *   `providerMetadata.openai.usage.cacheWriteTokens` (the 3.x+ providers compute
 *   `noCache` as the total less both);
 * - `@ai-sdk/amazon-bedrock` 3.x (Converse): `inputTokens` is Converse's own
 *   uncached count, `cachedInputTokens` its `cacheReadInputTokens`, the writes
 *   `providerMetadata.bedrock.usage.cacheWriteInputTokens`.
 * Anything else on V2 records nothing.
 */
import type { ProviderFamily } from './providers.js';
import type { GenerateResult, ProviderOptions } from './types.js';

/** Usage as the Messages API reports it (input side, and output tokens). */
export interface AnthropicUsage {
  readonly input_tokens: number;
  readonly output_tokens?: number;
  readonly cache_read_input_tokens?: number | null;
  readonly cache_creation_input_tokens?: number | null;
  readonly cache_creation?: { readonly ephemeral_5m_input_tokens?: number; readonly ephemeral_1h_input_tokens?: number } | null;
}

const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

const outputOf = (n: number | undefined): { output_tokens?: number } => (n === undefined ? {} : { output_tokens: n });

/** `field` of a V3/V4 token count object; undefined for a V2 flat number (or nothing). */
const part = (x: unknown, field: string): number | undefined => (x !== null && typeof x === 'object' ? num((x as Record<string, unknown>)[field]) : undefined);

/** The output tokens of a standardized usage: V3/V4 `outputTokens.total`, V2 `outputTokens`. */
const outputTokens = (usage: GenerateResult['usage'] | undefined): number | undefined => {
  const o: unknown = usage?.outputTokens;
  return num(o) ?? part(o, 'total');
};

/** A field of `providerMetadata[provider].usage`. */
const metadataUsage = (metadata: ProviderOptions | undefined, provider: string, field: string): number | undefined =>
  num((metadata?.[provider] as { usage?: Record<string, unknown> } | undefined)?.usage?.[field]);

/** A V2 (ai 5) flat usage of a provider whose counts are known (see the file's comment); undefined otherwise. */
function flatUsage(
  metadata: ProviderOptions | undefined,
  usage: GenerateResult['usage'] | undefined,
  family: ProviderFamily | undefined,
): AnthropicUsage | undefined {
  const flat = usage as { inputTokens?: unknown; cachedInputTokens?: unknown } | undefined;
  const input = num(flat?.inputTokens);
  if (input === undefined || (family !== 'openai' && family !== 'bedrock-converse')) return undefined;
  const read = num(flat?.cachedInputTokens) ?? 0;
  const write =
    (family === 'openai' ? metadataUsage(metadata, 'openai', 'cacheWriteTokens') : metadataUsage(metadata, 'bedrock', 'cacheWriteInputTokens')) ?? 0;
  return {
    input_tokens: family === 'openai' ? Math.max(0, input - read - write) : input,
    ...outputOf(outputTokens(usage)),
    cache_read_input_tokens: read,
    cache_creation_input_tokens: write,
  };
}

/**
 * The API's usage of one response, from the provider metadata when present,
 * else from the standardized usage; undefined when neither says anything.
 * `family` (the wrapped model's, from {@link providerFamily}) lets an ai 5
 * flat usage of OpenAI or Converse be read.
 *
 * @example
 * const usage = reportedUsage(result.providerMetadata, result.usage, providerFamily(model.provider, model.modelId));
 */
export function reportedUsage(
  providerMetadata: ProviderOptions | undefined,
  usage: GenerateResult['usage'] | undefined,
  family?: ProviderFamily,
): AnthropicUsage | undefined {
  const raw = (providerMetadata?.['anthropic'] as { usage?: Record<string, unknown> } | undefined)?.usage;
  const input = num(raw?.['input_tokens']);
  if (raw && input !== undefined) {
    const creation = raw['cache_creation'] as Record<string, unknown> | null | undefined;
    const c5 = num(creation?.['ephemeral_5m_input_tokens']);
    const c1 = num(creation?.['ephemeral_1h_input_tokens']);
    return {
      input_tokens: input,
      ...outputOf(num(raw['output_tokens']) ?? outputTokens(usage)),
      cache_read_input_tokens: num(raw['cache_read_input_tokens']) ?? 0,
      cache_creation_input_tokens: num(raw['cache_creation_input_tokens']) ?? 0,
      ...(c5 !== undefined || c1 !== undefined ? { cache_creation: { ephemeral_5m_input_tokens: c5 ?? 0, ephemeral_1h_input_tokens: c1 ?? 0 } } : {}),
    };
  }
  const counts: unknown = usage?.inputTokens;
  const noCache = part(counts, 'noCache');
  if (noCache === undefined) return flatUsage(providerMetadata, usage, family);
  return {
    input_tokens: noCache,
    ...outputOf(outputTokens(usage)),
    cache_read_input_tokens: part(counts, 'cacheRead') ?? 0,
    cache_creation_input_tokens: part(counts, 'cacheWrite') ?? 0,
  };
}
