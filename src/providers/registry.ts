/**
 * The providers by id: which profile a model id gets on a provider, and how a
 * render becomes that provider's request. One place, so the CLI, the
 * simulator's comparison and the fake server agree.
 */
import { UnknownModelError } from '../errors.js';
import type { ProviderId } from '../models/caching.js';
import { resolveProfile, type ModelProfile } from '../models/profiles.js';
import type { Rendered } from '../render/types.js';
import { toAnthropic } from './anthropic.js';
import { bedrockProfile, toBedrockConverse } from './bedrock.js';
import { toOpenAIResponses } from './openai.js';
import { OPENAI_MODELS } from './openai-profile.js';

/** The provider ids, for option validation. */
export const PROVIDER_IDS: readonly ProviderId[] = Object.freeze(['anthropic', 'bedrock', 'openai']);

const DATED_OPENAI = /^(.*)-\d{4}-\d{2}-\d{2}$/;

/**
 * The profile of `model` on `provider`: Anthropic's table, Claude under
 * Bedrock's rules (Bedrock ids or Anthropic ids), or OpenAI's table (dated
 * snapshot ids resolve to their family). `overrides` (custom profiles) win.
 *
 * @throws {UnknownModelError} naming the provider, the id and how to add a custom profile
 * @example
 * providerProfile('openai', 'gpt-5.4-2026-03-17').caching?.kind; // 'automatic'
 */
export function providerProfile(provider: ProviderId, model: string, overrides: Readonly<Record<string, ModelProfile>> = {}): ModelProfile {
  switch (provider) {
    case 'anthropic':
      return resolveProfile(model, overrides);
    case 'bedrock':
      try {
        return bedrockProfile(model, overrides);
      } catch (err) {
        if (err instanceof UnknownModelError) throw new UnknownModelError(model, err.known, undefined, 'bedrock');
        throw err;
      }
    case 'openai': {
      const found = overrides[model] ?? OPENAI_MODELS[model] ?? OPENAI_MODELS[model.replace(DATED_OPENAI, '$1')];
      if (found) return found;
      throw new UnknownModelError(model, Object.keys(OPENAI_MODELS), undefined, 'openai');
    }
  }
}

/** What the caller adds to a provider request built by {@link toProviderRequest}. */
export interface ProviderRequestOptions {
  /** The conversation: OpenAI's `prompt_cache_key`. */
  readonly conversationId?: string;
  /** OpenAI retention (before GPT-5.6). */
  readonly retention?: 'in_memory' | '24h';
}

/**
 * A render as the given provider's request body: Anthropic Messages params,
 * a Bedrock Converse input, or OpenAI Responses params.
 *
 * @example
 * const body = toProviderRequest('bedrock', rendered);
 */
export function toProviderRequest(provider: ProviderId, rendered: Rendered, options: ProviderRequestOptions = {}): unknown {
  switch (provider) {
    case 'anthropic':
      return toAnthropic(rendered);
    case 'bedrock':
      return toBedrockConverse(rendered);
    case 'openai':
      return toOpenAIResponses(rendered, {
        ...(options.conversationId !== undefined ? { promptCacheKey: options.conversationId } : {}),
        ...(options.retention !== undefined ? { retention: options.retention } : {}),
      });
  }
}
