/**
 * Rendered stream ⇄ Anthropic Messages API. `toAnthropic` builds the create
 * params, type-checked against the SDK's own types: tools, system blocks, and
 * alternating user/assistant messages with `cache_control` on the marked
 * blocks; the tail's blocks go last in the last user message.
 */
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { apiModelId } from '../models/profiles.js';
import type { CachePoint, Rendered } from '../render/types.js';

/** Request fields the caller adds (max_tokens, thinking, temperature, metadata, …). */
export type RequestExtras = Partial<Omit<MessageCreateParamsNonStreaming, 'model' | 'tools' | 'system' | 'messages'>>;

const DEFAULT_MAX_TOKENS = 8192;

function marker(point: CachePoint): CacheControlEphemeral {
  return point.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/**
 * Builds `client.messages.create(...)` params from a render.
 *
 * @example
 * const params = toAnthropic(render(state), { max_tokens: 4096 });
 * const message = await client.messages.create(params);
 */
export function toAnthropic(rendered: Rendered, extras: RequestExtras = {}): MessageCreateParamsNonStreaming {
  const marks = new Map<number, CachePoint>();
  for (const p of rendered.cachePoints) marks.set(p.index, p);
  const tools: ToolUnion[] = [];
  const system: TextBlockParam[] = [];
  const messages: MessageParam[] = [];
  const { stream } = rendered;
  for (let i = 0; i < stream.length; i++) {
    const b = stream[i]!;
    const point = marks.get(i);
    // Only marked blocks are copied; every other payload is sent as the same object.
    const param = point ? { ...b.param, cache_control: marker(point) } : b.param;
    if (b.role === 'tools') tools.push(param as ToolUnion);
    else if (b.role === 'system') system.push(param as TextBlockParam);
    else {
      const last = messages.at(-1);
      if (last && last.role === b.role) (last.content as ContentBlockParam[]).push(param as ContentBlockParam);
      else messages.push({ role: b.role, content: [param as ContentBlockParam] });
    }
  }
  return {
    model: apiModelId(rendered.model),
    max_tokens: DEFAULT_MAX_TOKENS,
    ...extras,
    ...(tools.length > 0 ? { tools } : {}),
    ...(system.length > 0 ? { system } : {}),
    messages,
  };
}

/**
 * The HTTP headers a render's request needs besides the params: `anthropic-beta` when the
 * profile has betas (the 1M-window profiles: `context-1m-2025-08-07`), else none. Pass them
 * as the SDK's request options, or merge them into your own headers.
 *
 * @example
 * const rendered = render(state, { profile: longContextProfile('claude-sonnet-4-5') });
 * await client.messages.create(toAnthropic(rendered), { headers: anthropicHeaders(rendered) });
 */
export function anthropicHeaders(rendered: Pick<Rendered, 'profile'>): Readonly<Record<string, string>> {
  const betas = rendered.profile.betas;
  return betas === undefined || betas.length === 0 ? {} : { 'anthropic-beta': betas.join(',') };
}

/** Removes every cache marker (block-level and top-level); the provider's cache key ignores them. */
export { stripCacheControl } from '../internal/blocks.js';

/**
 * Serializes params exactly as `JSON.stringify` does, and reports where each
 * block (tool, system block, message content block, in stream order) ends in
 * the text. This is how the prefix-stability invariant is checked byte for byte.
 */
export function serializeWithOffsets(params: MessageCreateParamsNonStreaming): { json: string; ends: number[] } {
  const ends: number[] = [];
  let json = '{';
  let first = true;
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined) continue;
    json += `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (key === 'tools' || key === 'system') {
      if (typeof value === 'string') {
        json += JSON.stringify(value);
        ends.push(json.length);
        continue;
      }
      json += '[';
      (value as unknown[]).forEach((v, i) => {
        json += (i ? ',' : '') + JSON.stringify(v);
        ends.push(json.length);
      });
      json += ']';
    } else if (key === 'messages') {
      json += '[';
      (value as MessageParam[]).forEach((m, i) => {
        json += `${i ? ',' : ''}{"role":${JSON.stringify(m.role)},"content":`;
        if (typeof m.content === 'string') {
          json += JSON.stringify(m.content);
          ends.push(json.length);
        } else {
          json += '[';
          m.content.forEach((c, j) => {
            json += (j ? ',' : '') + JSON.stringify(c);
            ends.push(json.length);
          });
          json += ']';
        }
        json += '}';
      });
      json += ']';
    } else {
      json += JSON.stringify(value);
    }
  }
  return { json: `${json}}`, ends };
}
