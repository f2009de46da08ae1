/**
 * Peer strategies on OpenAI: what common clients send, as the simulator reads
 * it (see from-provider.ts), applied to plain full-history requests. Thinking
 * blocks are dropped first (they do not travel to OpenAI), as in our own
 * mapping, so every run prices the same conversation.
 *
 * - `openai_default`: the full history as is, no retention option (in-memory
 *   caching before GPT-5.6; the implicit marker on GPT-5.6 and later).
 * - `openai_24h`: the same with `prompt_cache_retention: '24h'` (before 5.6).
 * - `openai_mask10`: naive observation masking: every tool result but the ten
 *   newest replaced by a placeholder, re-decided on every request, so the
 *   window slides through the prefix (a common "keep the context small" edit).
 * - `openai_system_bp` (GPT-5.6 and later): one explicit marker at the end
 *   of the instructions plus the implicit one (a published client's choice).
 *
 * A per-conversation `prompt_cache_key` changes routing only, which one
 * session's simulation does not model (every run here is one conversation on
 * one routing key), so "with key" and "without" price the same here; the key
 * matters across a fleet that shares a system prompt (docs/providers.md).
 */
import type { ModelProfile } from '../models/profiles.js';
import { openAIToolOutput } from '../providers/openai.js';
import type { Baseline } from './strategies.js';
import { stripCacheControl } from './strategies.js';
import type { SimParams } from './types.js';

type Loose = Record<string, unknown>;

const THINKING = new Set(['thinking', 'redacted_thinking']);

function withoutThinking(p: SimParams): SimParams {
  const messages = p.messages
    .map((m) => (typeof m.content === 'string' ? m : { ...m, content: m.content.filter((b) => !THINKING.has((b as { type: string }).type)) }))
    .filter((m) => typeof m.content === 'string' || m.content.length > 0);
  return { ...p, messages } as SimParams;
}

/** Tool outputs in the list form every OpenAI mapping here sends (ours too), so all runs price the same bytes. */
function listOutputs(p: SimParams): SimParams {
  const messages = p.messages.map((m) =>
    typeof m.content === 'string'
      ? m
      : {
          ...m,
          content: m.content.map((b) => {
            const r = b as unknown as Loose;
            if (r.type !== 'tool_result') return b;
            const parts: unknown[] = typeof r.content === 'string' ? [{ type: 'text', text: r.content }] : Array.isArray(r.content) ? r.content : [];
            // The error flag has no OpenAI field: the same rule as our own mapping.
            const { is_error: isError, ...rest } = r;
            return { ...rest, content: openAIToolOutput(parts as { type: string }[], isError === true) } as unknown as typeof b;
          }),
        },
  );
  return { ...p, messages } as SimParams;
}

function plain(p: SimParams): SimParams {
  return listOutputs(withoutThinking(stripCacheControl(p)));
}

function implicitMarker(profile: ModelProfile): Loose {
  return profile.caching?.kind === 'markers' && profile.caching.implicit ? { cache_control: { type: 'ephemeral' } } : {};
}

/** Tool outputs `openai_mask10` keeps visible. */
const MASK_KEEP = 10;

function masked(p: SimParams, keep: number): SimParams {
  let seen = 0;
  const total = p.messages.reduce(
    (n, m) => n + (typeof m.content === 'string' ? 0 : m.content.filter((b) => (b as { type: string }).type === 'tool_result').length),
    0,
  );
  const messages = p.messages.map((m) => {
    if (typeof m.content === 'string') return m;
    return {
      ...m,
      content: m.content.map((b) => {
        if ((b as { type: string }).type !== 'tool_result') return b;
        seen += 1;
        return seen <= total - keep ? { ...(b as unknown as Loose), content: '[older tool output omitted]' } : b;
      }),
    };
  });
  return { ...p, messages } as SimParams;
}

function lastSystemMarked(p: SimParams): SimParams {
  const system = Array.isArray(p.system) ? p.system : [];
  if (system.length === 0) return p;
  return { ...p, system: [...system.slice(0, -1), { ...(system.at(-1) as unknown as Loose), cache_control: { type: 'ephemeral' } }] } as SimParams;
}

function peer(id: string, label: string, description: string, apply: (p: SimParams) => SimParams, masks?: number): Baseline {
  return Object.freeze({ id, label, description, apply, ...(masks !== undefined ? { masks } : {}) });
}

/**
 * The OpenAI peers for one model profile (the GPT-5.6 implicit marker depends on it).
 *
 * @example
 * compareStrategies(plainRequests, { profile, strategies: openAIBaselines(profile) });
 */
export function openAIBaselines(profile: ModelProfile): readonly Baseline[] {
  const implicit = implicitMarker(profile);
  const markers = profile.caching?.kind === 'markers';
  const out: Baseline[] = [
    peer(
      'openai_default',
      'full history, provider defaults',
      'The whole history every request; no retention option; the implicit marker on GPT-5.6+.',
      (p) => ({
        ...plain(p),
        ...implicit,
      }),
    ),
    peer(
      'openai_mask10',
      'mask all but 10 newest tool outputs',
      'Tool results older than the ten newest replaced by a placeholder, every request.',
      (p) => ({
        ...masked(plain(p), MASK_KEEP),
        ...implicit,
      }),
      MASK_KEEP,
    ),
  ];
  if (markers) {
    out.push(
      peer('openai_system_bp', 'instructions marker + implicit', 'An explicit marker on the last instruction block, plus the implicit one.', (p) => ({
        ...lastSystemMarked(plain(p)),
        ...implicit,
      })),
    );
  } else {
    out.push(
      peer('openai_24h', 'full history, 24h retention', "The whole history every request with prompt_cache_retention '24h'.", (p) => ({
        ...plain(p),
        cache_control: { type: 'ephemeral', ttl: '1h' },
      })),
    );
  }
  return Object.freeze(out);
}
