/**
 * Rendered stream ⇄ Anthropic Messages API. `toAnthropic` builds the create
 * params, typed with the API shapes of ./anthropic-types.ts: tools, system blocks, and
 * alternating user/assistant messages with `cache_control` on the marked
 * blocks; the tail's blocks go last in the last user message.
 */
import type {
  AnthropicRequestParams,
  CacheControlEphemeral,
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  PortableMessageParam,
  PortableToolUnion,
  TextBlockParam,
  ToolUnion,
} from './anthropic-types.js';
import { apiModelId } from '../models/profiles.js';
import { chainParent, partsLayout, partsStable, streamLayout, streamParts } from '../render/projection.js';
import type { CachePoint, Rendered, StreamBlock } from '../render/types.js';

/** Request fields the caller adds (max_tokens, thinking, temperature, metadata, …). */
export type RequestExtras = Partial<Omit<MessageCreateParamsNonStreaming, 'model' | 'tools' | 'system' | 'messages'>>;

const DEFAULT_MAX_TOKENS = 8192;

function marker(point: CachePoint): CacheControlEphemeral {
  return point.ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' };
}

/**
 * Builds `client.messages.create(...)` params from a render.
 *
 * The messages of a render's stable part are mapped once per chain of renders
 * (see `StreamLayout.chain`): a render that only appended maps only the
 * blocks it appended, and shares the earlier message objects, which are
 * frozen. Only the messages that carry a marker, and the last one when the
 * tail joins it, are fresh copies.
 *
 * @example
 * const params = toAnthropic(render(state), { max_tokens: 4096 });
 * const message = await client.messages.create(params);
 */
export function toAnthropic(rendered: Rendered, extras: RequestExtras = {}): AnthropicRequestParams {
  const mapped = mapLaidOut(rendered) ?? mapAll(rendered);
  return {
    model: apiModelId(rendered.model),
    max_tokens: DEFAULT_MAX_TOKENS,
    ...('cache_control' in extras ? withoutAutomaticCaching(extras) : extras),
    ...(mapped.tools.length > 0 ? { tools: mapped.tools as PortableToolUnion[] } : {}),
    ...(mapped.system.length > 0 ? { system: mapped.system } : {}),
    // Typed with the block and tool kinds every supported SDK knows; newer kinds in the timeline are sent as they are.
    messages: mapped.messages as PortableMessageParam[],
  };
}

/**
 * The extras without a top-level `cache_control` (automatic caching: the API puts a marker on the last cacheable block,
 * SDK 1.14's `MessageCreateParams.cache_control`). Cache points are placed here, and the last block is the volatile tail
 * (or a prefill) more often than not: a marker there caches what is never reused, and with ① to ④ placed it is a fifth,
 * which the API refuses ("A maximum of 4 blocks with cache_control may be provided"). Like the markers in the caller's
 * blocks, it is dropped.
 */
function withoutAutomaticCaching(extras: RequestExtras): RequestExtras {
  const { cache_control: _automatic, ...rest } = extras as RequestExtras & { cache_control?: unknown };
  return rest;
}

interface Mapped {
  tools: ToolUnion[];
  system: TextBlockParam[];
  messages: MessageParam[];
}

/** Every block mapped in stream order: any stream, however it was built. */
function mapAll(rendered: Rendered): Mapped {
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
  return { tools, system, messages };
}

/** The unmarked messages of a chain's stable blocks, mapped so far. Shared by every render of the chain. */
interface ChainMessages {
  /** Frozen messages (content arrays frozen too): never handed out to be written. */
  readonly messages: MessageParam[];
  /** starts[k] = stream index of the first block of messages[k]. */
  readonly starts: number[];
  /** Blocks mapped: the messages cover the stable blocks from the envelope's end up to here. */
  upTo: number;
}

const chainMessages = new WeakMap<object, ChainMessages>();

/**
 * The mapping of a render whose stable part has a layout (every render of
 * `render()`): the envelope is mapped anew (a few blocks), the messages come
 * from the chain's memo, extended by what this render appended. Undefined
 * when the stream has no layout, or has a block where the memo's assumptions
 * (envelope first, then only user and assistant blocks) do not hold.
 */
function mapLaidOut(rendered: Rendered): Mapped | undefined {
  const { cachePoints } = rendered;
  // The stable stream and the tail: apart when the render kept them apart (then the whole stream is
  // never built here), else the stable part is the start of `rendered.stream`.
  const parts = streamParts(rendered);
  // (A render mapped after a later one rewrote the store it shares: its own blocks, see partsStable.)
  const base = parts ? partsStable(parts) : rendered.stream;
  // With parts, the stable array may be the chain's, grown by later renders: only its first `stable` blocks are this render's.
  const layout = parts ? partsLayout(parts) : streamLayout(base);
  if (!layout) return undefined;
  const stable = layout.length;
  if (parts && stable !== parts.stableLength) return undefined;
  const tailBlocks = parts ? parts.tail : base;
  const tailFrom = parts ? 0 : stable;
  const length = parts ? stable + parts.tail.length : base.length;
  const stream = base;
  const first = layout.envelopeEnd + 1;
  for (let i = stable; i < length; i++) if (!isMessageRole(tailBlocks[i - stable + tailFrom]!.role)) return undefined;
  let memo = chainMessages.get(layout.chain);
  if (!memo) chainMessages.set(layout.chain, (memo = seeded(layout.chain, first) ?? { messages: [], starts: [], upTo: first }));
  if (memo.upTo < stable && !extend(memo, stream, stable)) return undefined;

  const tools: ToolUnion[] = [];
  const system: TextBlockParam[] = [];
  for (let i = 0; i < first; i++) {
    const b = stream[i]!;
    const point = pointAt(cachePoints, i);
    const param = point ? { ...b.param, cache_control: marker(point) } : b.param;
    if (b.role === 'tools') tools.push(param as ToolUnion);
    else system.push(param as TextBlockParam);
  }

  // The messages of the stable part: the memo's, cut at this render's length (an older render of the chain).
  const count = countBelow(memo.starts, stable);
  // The request's own array (the tail usually joins the last message; a message it starts is pushed).
  const messages = memo.messages.slice(0, count);
  // Where each message starts: the memo's for the stable part, this render's own for the tail's messages.
  const tailStarts: number[] = [];
  // The messages this request owns (fresh copies it may write to): a few, so an array, not a set.
  const owned: number[] = [];
  if (count > 0) {
    const end = count === memo.starts.length ? memo.upTo : memo.starts[count]!;
    if (end > stable) {
      const k = count - 1;
      const m = messages[k]!;
      messages[k] = { role: m.role, content: (m.content as ContentBlockParam[]).slice(0, stable - memo.starts[k]!) } as MessageParam;
      owned.push(k);
    }
  }
  // The tail: joins the last message when the roles match, else starts new ones.
  for (let i = stable; i < length; i++) {
    const b = tailBlocks[i - stable + tailFrom]!;
    const k = messages.length - 1;
    if (k >= 0 && messages[k]!.role === b.role) own(messages, owned, k).push(b.param as ContentBlockParam);
    else {
      messages.push({ role: b.role, content: [b.param as ContentBlockParam] } as MessageParam);
      tailStarts.push(i);
      owned.push(k + 1);
    }
  }
  // The markers: a copy of each marked message, with a copy of the marked block.
  for (const p of cachePoints) {
    if (p.index < first || p.index >= length || pointAt(cachePoints, p.index) !== p) continue;
    const k = p.index < stable ? countBelow(memo.starts, p.index + 1) - 1 : count + countBelow(tailStarts, p.index + 1) - 1;
    const content = own(messages, owned, k);
    const start = k < count ? memo.starts[k]! : tailStarts[k - count]!;
    const block = p.index < stable ? base[p.index]! : tailBlocks[p.index - stable + tailFrom]!;
    content[p.index - start] = { ...block.param, cache_control: marker(p) } as ContentBlockParam;
  }
  return { tools, system, messages };
}

/** Message k's content, made a fresh copy of the request's own on first write (`owned`: the messages copied so far). */
function own(messages: MessageParam[], owned: number[], k: number): ContentBlockParam[] {
  if (!owned.includes(k)) {
    const m = messages[k]!;
    messages[k] = { role: m.role, content: [...(m.content as ContentBlockParam[])] } as MessageParam;
    owned.push(k);
  }
  return messages[k]!.content as ContentBlockParam[];
}

/** The point on block `index` (the last one listed there, as a map by index would keep), if any. */
function pointAt(points: readonly CachePoint[], index: number): CachePoint | undefined {
  let found: CachePoint | undefined;
  for (const p of points) if (p.index === index) found = p;
  return found;
}

/**
 * The messages of a new chain taken over from the chain it started from (a
 * hide, a prune or a branch changed a block at `shared`): the parent's
 * messages that end at or before `shared` are the same objects for both, so
 * only the rest is mapped (was every message of the session again, ~6 ms at
 * 10k messages, once per change).
 *
 * The parent's arrays themselves are taken, cut there, and the parent's memo
 * is dropped: an economy session starts a new chain on most requests (a
 * prune), and copying both arrays each time was O(messages) per request and
 * most of the step's garbage at 5,000 requests. A render of the parent's chain
 * mapped again later (an older request, a branch) maps its messages anew.
 */
function seeded(chain: object, first: number): ChainMessages | undefined {
  const link = chainParent(chain);
  const parent = link && chainMessages.get(link.parent);
  if (!link || !parent || parent.starts[0] !== first) return undefined;
  const limit = Math.min(link.shared, parent.upTo);
  /** Where message k of the parent ends (exclusive). */
  const end = (k: number): number => (k + 1 < parent.starts.length ? parent.starts[k + 1]! : parent.upTo);
  let j = countBelow(parent.starts, limit);
  if (j > 0 && end(j - 1) > limit) j--;
  if (j === 0) return undefined;
  const upTo = end(j - 1);
  chainMessages.delete(link.parent);
  parent.messages.length = j;
  parent.starts.length = j;
  return { messages: parent.messages, starts: parent.starts, upTo };
}

/** Maps the stable blocks from `memo.upTo` to `stable` onto the chain's messages; false when a block is not a message block. */
function extend(memo: ChainMessages, stream: readonly StreamBlock[], stable: number): boolean {
  for (let i = memo.upTo; i < stable; i++) if (!isMessageRole(stream[i]!.role)) return false;
  let i = memo.upTo;
  const k = memo.messages.length - 1;
  // The last message grows when the first new block has its role (results, then a user turn).
  if (k >= 0 && memo.messages[k]!.role === stream[i]!.role) {
    const role = stream[i]!.role as MessageParam['role'];
    const content = [...(memo.messages[k]!.content as ContentBlockParam[])];
    for (; i < stable && stream[i]!.role === role; i++) content.push(stream[i]!.param as ContentBlockParam);
    memo.messages[k] = freezeMessage(role, content);
  }
  while (i < stable) {
    const role = stream[i]!.role as MessageParam['role'];
    const start = i;
    const content: ContentBlockParam[] = [];
    for (; i < stable && stream[i]!.role === role; i++) content.push(stream[i]!.param as ContentBlockParam);
    memo.messages.push(freezeMessage(role, content));
    memo.starts.push(start);
  }
  memo.upTo = stable;
  return true;
}

function freezeMessage(role: MessageParam['role'], content: ContentBlockParam[]): MessageParam {
  return Object.freeze({ role, content: Object.freeze(content) as ContentBlockParam[] }) as MessageParam;
}

function isMessageRole(role: StreamBlock['role']): boolean {
  return role === 'user' || role === 'assistant';
}

/** How many entries of the ascending `starts` are below `index` (binary search). */
function countBelow(starts: readonly number[], index: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < index) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The HTTP headers a render's request needs besides the params: `anthropic-beta` when the
 * profile has betas (the 1M-window profiles: `context-1m-2025-08-07`), and with `params` whose
 * `thinking.block_binding` is set (the `drop_block` opt-in of preserved thinking) also
 * `thinking-binding-controls-2026-08-01`; else none. The `betas` of `params` (what
 * `client.beta.messages.create` sends as this header, and these headers replace) come first in it.
 * Pass them as the SDK's request options, or merge them into your own headers.
 *
 * @example
 * const rendered = render(state, { profile: longContextProfile('claude-sonnet-4-5') });
 * await client.messages.create(toAnthropic(rendered), { headers: anthropicHeaders(rendered) });
 */
export function anthropicHeaders(
  rendered: Pick<Rendered, 'profile'>,
  params?: { readonly thinking?: unknown; readonly betas?: unknown },
): Readonly<Record<string, string>> {
  const betas = rendered.profile.betas;
  const binding = hasBlockBinding(params?.thinking);
  // No beta needed (the usual request): no arrays built (prepare asks on every request).
  if (!binding && (betas === undefined || betas.length === 0)) return {};
  const needed = [...(betas ?? []), ...(binding ? [THINKING_BINDING_BETA] : [])];
  const own = Array.isArray(params?.betas) ? params.betas.filter((b): b is string => typeof b === 'string') : [];
  return { 'anthropic-beta': [...new Set([...own, ...needed])].join(',') };
}

/**
 * The `anthropic-beta` value a request needs to set `thinking.block_binding` (preserved thinking:
 * `prefix_mismatch_behavior: "drop_block"` makes the API drop thinking whose prefix changed instead of
 * answering 400; docs/models.md, "Preserved thinking").
 */
export const THINKING_BINDING_BETA = 'thinking-binding-controls-2026-08-01';

/** Whether request params set `thinking.block_binding` (then {@link THINKING_BINDING_BETA} is needed). */
function hasBlockBinding(thinking: unknown): boolean {
  if (thinking === null || typeof thinking !== 'object') return false;
  const binding = (thinking as { block_binding?: unknown }).block_binding;
  return binding !== null && typeof binding === 'object';
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
