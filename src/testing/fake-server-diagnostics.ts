/**
 * Cache diagnostics as the real API answers them
 * (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics, GA,
 * no beta header). A request that carries `diagnostics` stores a fingerprint
 * keyed by its response id; a later request naming that id in
 * `diagnostics.previous_message_id` is compared with it, and the response says
 * where the two first diverge. The comparison is about request structure, not
 * about whether the cache hit. Cache markers are stripped before comparing,
 * because a moving marker does not change the prefix.
 *
 * Response shape (SDK `Message.diagnostics`): `null` when the request did not
 * ask, when it named no previous message, or when nothing diverged (messages
 * only appended); otherwise `{ cache_miss_reason }`.
 */
import type { MessageCreateParamsBase } from '../providers/anthropic-types.js';
import { messageBlocks, type PromptTokens } from './fake-server-usage.js';

// TYPES

/**
 * The API's `cache_miss_reason` (the SDK's `CacheMissReason`, declared here so the
 * testing entry point also typechecks next to SDK versions that predate it).
 */
export type CacheMissReason =
  | { readonly type: 'model_changed' | 'tools_changed' | 'system_changed' | 'messages_changed'; readonly cache_missed_input_tokens: number }
  | { readonly type: 'previous_message_not_found' | 'unavailable' };

/** A response's `diagnostics` (the SDK's `Diagnostics`). */
export interface Diagnostics {
  readonly cache_miss_reason: CacheMissReason | null;
}

/** What the server keeps of a request to compare a later one with (hashes would do; we keep canonical strings). */
export interface Fingerprint {
  readonly model: string;
  readonly tools: string;
  readonly system: string;
  /** Prompt-affecting parameters that are neither model, tools, system nor messages. */
  readonly other: string;
  /** One canonical string per message content block, with its role. */
  readonly blocks: readonly string[];
  readonly tokens: PromptTokens;
}

// IMPLEMENTATION

/** JSON with sorted keys and without `cache_control`, so equal content compares equal. */
function canonical(value: unknown): string {
  return (
    JSON.stringify(value, (key, v: unknown) => {
      if (key === 'cache_control') return undefined;
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      }
      return v;
    }) ?? 'null'
  );
}

/** Builds the fingerprint of a (valid) request. */
export function fingerprint(params: MessageCreateParamsBase, tokens: PromptTokens): Fingerprint {
  const system = typeof params.system === 'string' ? [{ type: 'text', text: params.system }] : (params.system ?? []);
  return {
    model: params.model,
    tools: canonical(params.tools ?? []),
    system: canonical(system),
    other: canonical({ thinking: params.thinking ?? null, tool_choice: params.tool_choice ?? null }),
    blocks: params.messages.flatMap((m) => messageBlocks(m.content).map((b) => `${m.role}:${canonical(b)}`)),
    tokens,
  };
}

/**
 * Compares a request with the one it names as previous and answers what the
 * API puts in `diagnostics` (see the file comment for when that is `null`).
 */
export function diagnose(previous: Fingerprint | undefined, current: Fingerprint): Diagnostics | null {
  const reason = missReason(previous, current);
  return reason === null ? null : { cache_miss_reason: reason };
}

function missReason(previous: Fingerprint | undefined, current: Fingerprint): CacheMissReason | null {
  if (previous === undefined) return { type: 'previous_message_not_found' };
  const t = previous.tokens;
  // Approximate tokens the previous prefix had after the divergence point: what could have been read.
  if (previous.model !== current.model) return { type: 'model_changed', cache_missed_input_tokens: t.total };
  if (previous.tools !== current.tools) return { type: 'tools_changed', cache_missed_input_tokens: t.total };
  if (previous.system !== current.system) return { type: 'system_changed', cache_missed_input_tokens: t.total - t.tools };
  if (previous.other !== current.other) return { type: 'unavailable' };
  let same = 0;
  while (same < previous.blocks.length && previous.blocks[same] === current.blocks[same]) same++;
  if (same === previous.blocks.length) return null;
  const missed = t.blocks.slice(same).reduce((a, b) => a + b, 0);
  return { type: 'messages_changed', cache_missed_input_tokens: missed };
}
