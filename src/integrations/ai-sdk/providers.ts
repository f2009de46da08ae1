/**
 * The AI SDK providers the middleware serves, by the wrapped model's
 * `provider` id, and what differs between them: the profile the engine
 * renders with, where the cache marker is written, and the call-level options.
 *
 * - Anthropic Messages (`anthropic.messages`, `bedrock.anthropic.messages`,
 *   `googleVertex.anthropic.messages`): `providerOptions.anthropic.cacheControl`.
 * - OpenAI (`@ai-sdk/openai`: `openai.responses`, `openai.chat`): the call's
 *   `providerOptions.openai.promptCacheKey` is the conversation id (routing);
 *   on models with markers (GPT-5.6 and later) `promptCacheBreakpoint:
 *   { mode: 'explicit' }` on the parts the cache points fell on and
 *   `promptCacheOptions: { mode: 'explicit' }`; before 5.6, no markers
 *   (automatic prefix caching).
 * - Bedrock Converse (`@ai-sdk/amazon-bedrock`, provider `amazon-bedrock`):
 *   `providerOptions.bedrock.cachePoint: { type: 'default' }` on those parts
 *   (the provider appends a `cachePoint` block after the part).
 * - The Vercel AI Gateway (`gateway('anthropic/claude-sonnet-4.6')`, and ai's
 *   plain string model ids), for Claude models only: the gateway passes the
 *   call's `providerOptions` to its Anthropic provider unchanged when its own
 *   `caching` option is not set (vercel.com/docs/ai-gateway/models-and-providers/
 *   automatic-caching, read 2026-12-02), so the Anthropic markers apply. Its
 *   model ids spell versions with dots: `anthropic/claude-sonnet-4.6` is
 *   `claude-sonnet-4-6` ({@link engineModelId}).
 */
import type { CacheControlEphemeral } from '../../providers/anthropic-types.js';
import type { ModelProfile } from '../../models/profiles.js';
import { bedrockProfile } from '../../providers/bedrock.js';
import { OPENAI_MODELS } from '../../providers/openai-profile.js';
import type { PrepareOptions } from '../../conversation/prepare.js';
import { ANTHROPIC_MARKER, type MarkerSite, type MarkerTarget } from './from-anthropic.js';
import type { CallOptions, ProviderOptions } from './types.js';

/** Which cache API a wrapped model speaks. */
export type ProviderFamily = 'anthropic' | 'openai' | 'bedrock-converse';

const ANTHROPIC_PROVIDERS = /^(anthropic|bedrock\.anthropic|googleVertex\.anthropic|vertex\.anthropic)\.messages$/;
const OPENAI_PROVIDERS = /^openai\.(responses|chat)$/;

/** The gateway's prefix of Claude model ids. */
const GATEWAY_ANTHROPIC = 'anthropic/';

/**
 * The family of a model `provider` id, undefined when the middleware does not serve it. The AI Gateway serves
 * every provider's models under one provider id, so there the model id (`anthropic/…`) decides.
 *
 * @example
 * providerFamily('openai.responses'); // 'openai'
 * providerFamily('gateway', 'anthropic/claude-sonnet-4.6'); // 'anthropic'
 */
export function providerFamily(provider: string, modelId?: string): ProviderFamily | undefined {
  if (ANTHROPIC_PROVIDERS.test(provider)) return 'anthropic';
  if (provider === 'gateway') return modelId?.startsWith(GATEWAY_ANTHROPIC) ? 'anthropic' : undefined;
  if (OPENAI_PROVIDERS.test(provider)) return 'openai';
  if (provider === 'amazon-bedrock') return 'bedrock-converse';
  return undefined;
}

/**
 * The model id the engine resolves a profile for: the wrapped model's, but for the gateway's Claude ids, which lose
 * their `anthropic/` prefix and spell a version's dots as dashes (`anthropic/claude-opus-4.6` → `claude-opus-4-6`),
 * unless `profiles` (the render options') has one under the gateway's id itself: the id the caller knows.
 * An id no profile knows (a `-batch` or `-fast` variant) stays unknown: the call is then sent unchanged, with a warning.
 *
 * @example
 * engineModelId('gateway', 'anthropic/claude-sonnet-4.6'); // 'claude-sonnet-4-6'
 * engineModelId('gateway', 'anthropic/claude-opus-4.8-fast', { 'anthropic/claude-opus-4.8-fast': fast }); // 'anthropic/claude-opus-4.8-fast'
 */
export function engineModelId(provider: string, modelId: string, profiles?: Readonly<Record<string, ModelProfile>>): string {
  if (provider !== 'gateway' || !modelId.startsWith(GATEWAY_ANTHROPIC) || profiles?.[modelId] !== undefined) return modelId;
  return modelId.slice(GATEWAY_ANTHROPIC.length).replace(/(\d)\.(\d)/g, '$1-$2');
}

type RenderOptions = NonNullable<PrepareOptions['render']>;

/** The render options for a family: OpenAI's model table, Bedrock's profile of the model. */
export function renderOptionsFor(family: ProviderFamily, modelId: string, render: RenderOptions | undefined): RenderOptions | undefined {
  if (family === 'anthropic' || render?.profile !== undefined) return render;
  if (family === 'openai') return { ...render, profiles: { ...OPENAI_MODELS, ...render?.profiles } };
  return { ...render, profile: bedrockProfile(modelId, render?.profiles) };
}

const OPENAI_MARKER: MarkerTarget = (_marker, site) =>
  // A marker goes on a content part or a system message; tools take none.
  site === 'tool' ? undefined : { key: 'openai', options: { promptCacheBreakpoint: { mode: 'explicit' } } };

/** OpenAI's markers on the Responses API, tool outputs always in list form (see `MarkerTarget.listOutputs`). */
const OPENAI_RESPONSES_MARKER: MarkerTarget = Object.assign((marker: CacheControlEphemeral, site: MarkerSite) => OPENAI_MARKER(marker, site), {
  listOutputs: true,
});

/** Converse: a cachePoint on the parts (and, for a message's last part, on the message: see `MarkerTarget.onMessage`). */
const BEDROCK_CACHE_POINT: MarkerTarget = Object.assign(
  (marker: CacheControlEphemeral, site: MarkerSite) =>
    // The provider reads cachePoint on messages and parts, not on tools.
    site === 'tool' ? undefined : { key: 'bedrock', options: { cachePoint: marker.ttl === '1h' ? { type: 'default', ttl: '1h' } : { type: 'default' } } },
  { onMessage: true },
);

/** Where the engine's markers go for this family, profile and model provider id (OpenAI before 5.6: nowhere). */
export function markerTarget(family: ProviderFamily, profile: ModelProfile, provider?: string): MarkerTarget {
  if (family === 'anthropic') return ANTHROPIC_MARKER;
  if (family === 'bedrock-converse') return BEDROCK_CACHE_POINT;
  if (profile.caching?.kind !== 'markers') return () => undefined;
  return provider === 'openai.responses' ? OPENAI_RESPONSES_MARKER : OPENAI_MARKER;
}

/** The call with its family's call-level cache options (OpenAI: the prompt cache key, explicit mode with markers). */
export function withCallOptions(call: CallOptions, family: ProviderFamily, profile: ModelProfile, conversationId: string, marked: boolean): CallOptions {
  if (family === 'anthropic') return withBetas(call, profile.betas ?? []);
  if (family !== 'openai') return call;
  const own = (call.providerOptions?.['openai'] as Record<string, unknown> | undefined) ?? {};
  const explicit = profile.caching?.kind === 'markers' && marked;
  const openai = {
    ...own,
    promptCacheKey: own['promptCacheKey'] ?? conversationId,
    ...(explicit ? { promptCacheOptions: { ...(own['promptCacheOptions'] as object | undefined), mode: 'explicit' } } : {}),
  };
  return { ...call, providerOptions: { ...call.providerOptions, openai } as unknown as ProviderOptions };
}

/**
 * The call without the AI Gateway's own `caching` option (`providerOptions.gateway.caching: 'auto'` makes the gateway
 * add a marker at the end of the static content, beside the engine's: a fifth marker, or two cache points fighting), or
 * undefined when it has none.
 */
export function withoutGatewayCaching(call: CallOptions): CallOptions | undefined {
  const own = call.providerOptions?.['gateway'] as Record<string, unknown> | undefined;
  if (own === undefined || !('caching' in own)) return undefined;
  const { caching: _caching, ...gateway } = own;
  return { ...call, providerOptions: { ...call.providerOptions, gateway } as unknown as ProviderOptions };
}

/** The call with the profile's `anthropic-beta` values (the 1M window's) added to any the caller already sends. */
function withBetas(call: CallOptions, betas: readonly string[]): CallOptions {
  if (betas.length === 0) return call;
  const own = call.headers?.['anthropic-beta'];
  const values = [...new Set([...(own ?? '').split(',').map((b) => b.trim()), ...betas].filter((b) => b !== ''))];
  return { ...call, headers: { ...call.headers, 'anthropic-beta': values.join(',') } };
}
