/**
 * Baselines: the marker placements peers use, applied to plain full-history
 * requests. Each strategy strips every existing marker (block-level and
 * top-level) and places its own; the input is never mutated (changed blocks
 * and arrays are copied). Placement rules, precisely:
 *
 * - "markable": any tool definition; any system or content block except
 *   thinking, redacted_thinking and empty text (the API's 400 cases).
 * - "last block of message m": its last content block, walking back inside m
 *   to a markable one; none if m has no markable block.
 * - "last message block": the last block of the last message, walking back
 *   through earlier messages if needed (what the API's automatic caching does).
 * - "system" marker: the last system block (a string `system` becomes one
 *   text block, which has the same identity); with no system, the last tool.
 * - "tools" marker: the last tool that is part of the prefix (not `defer_loading`).
 * - Markers landing on the same block merge (the longer TTL wins); 1h markers
 *   come first in render order by construction; never more than 4.
 */
import type { SimParams } from './types.js';
import { contentBlocks, stripCacheControl } from '../internal/blocks.js';
import { isMarkable, MAX_CACHE_POINTS } from './prefix.js';

export { stripCacheControl };
import type { CacheTtl } from './types.js';

// TYPES

/** Stable ids of the built-in baselines. */
export type BaselineId = 'none' | 'envelope' | 'auto' | 'system_last' | 'system1h_last' | 'ide4' | 'system2_last2' | 'system_last2user';

/** A marker placement strategy: plain request in, marked request out. */
export interface Baseline {
  readonly id: string;
  readonly label: string;
  /** Where it puts its markers, in one sentence. */
  readonly description: string;
  apply(params: SimParams): SimParams;
  /**
   * Observation masking: every tool result but the `masks` newest is replaced
   * by a placeholder. Such a peer forces recalls (a later call needs a masked
   * result), and a comparison over a replayed trace charges them to it
   * (src/replay/compare.ts).
   */
  readonly masks?: number;
}

/** A place for a marker: `system.i`, `tools.i`, or a message block. */
type Slot =
  | { readonly kind: 'tools'; readonly index: number; readonly ttl: CacheTtl }
  | { readonly kind: 'system'; readonly index: number; readonly ttl: CacheTtl }
  | { readonly kind: 'message'; readonly message: number; readonly block: number; readonly ttl: CacheTtl };

// IMPLEMENTATION

type Loose = Record<string, unknown>;

function systemBlocks(params: SimParams): readonly unknown[] {
  return contentBlocks(params.system);
}

function lastTool(params: SimParams): number {
  const tools = params.tools ?? [];
  for (let i = tools.length - 1; i >= 0; i--) if ((tools[i] as { defer_loading?: unknown }).defer_loading !== true) return i;
  return -1;
}

function lastMarkableIn(params: SimParams, message: number): number {
  const m = params.messages[message];
  if (!m) return -1;
  const blocks = contentBlocks(m.content);
  for (let i = blocks.length - 1; i >= 0; i--) if (isMarkable(blocks[i])) return i;
  return -1;
}

function lastMessageSlot(params: SimParams, ttl: CacheTtl): Slot | null {
  for (let m = params.messages.length - 1; m >= 0; m--) {
    const b = lastMarkableIn(params, m);
    if (b >= 0) return { kind: 'message', message: m, block: b, ttl };
  }
  return null;
}

function messageSlot(params: SimParams, message: number, ttl: CacheTtl): Slot | null {
  const b = lastMarkableIn(params, message);
  return b >= 0 ? { kind: 'message', message, block: b, ttl } : null;
}

function systemSlot(params: SimParams, index: number, ttl: CacheTtl): Slot | null {
  const blocks = systemBlocks(params);
  return index >= 0 && index < blocks.length && isMarkable(blocks[index]) ? { kind: 'system', index, ttl } : null;
}

function lastSystemSlot(params: SimParams, ttl: CacheTtl): Slot | null {
  const blocks = systemBlocks(params);
  for (let i = blocks.length - 1; i >= 0; i--) if (isMarkable(blocks[i])) return { kind: 'system', index: i, ttl };
  return null;
}

function envelopeSlot(params: SimParams, ttl: CacheTtl): Slot | null {
  const s = lastSystemSlot(params, ttl);
  if (s) return s;
  const t = lastTool(params);
  return t >= 0 ? { kind: 'tools', index: t, ttl } : null;
}

function key(s: Slot): string {
  return s.kind === 'message' ? `m${s.message}.${s.block}` : `${s.kind}${s.index}`;
}

/** Marks the given slots on a stripped copy of the request (merging duplicates, keeping at most 4). */
export function placeMarkers(params: SimParams, slots: readonly (Slot | null)[]): SimParams {
  const merged = new Map<string, Slot>();
  for (const s of slots) {
    if (!s) continue;
    const old = merged.get(key(s));
    if (!old || (old.ttl === '5m' && s.ttl === '1h')) merged.set(key(s), s);
  }
  const chosen = [...merged.values()].slice(0, MAX_CACHE_POINTS);
  const out = stripCacheControl(params) as unknown as Loose & { tools?: unknown[]; system?: unknown; messages: { role: string; content: unknown }[] };
  const mark = (block: unknown, ttl: CacheTtl): unknown => ({
    ...(block as Loose),
    cache_control: ttl === '1h' ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' },
  });
  for (const s of chosen) {
    if (s.kind === 'tools' && out.tools) {
      const tools = [...out.tools];
      tools[s.index] = mark(tools[s.index], s.ttl);
      out.tools = tools;
    } else if (s.kind === 'system') {
      const blocks = [...systemBlocks(out as unknown as SimParams)];
      blocks[s.index] = mark(blocks[s.index], s.ttl);
      out.system = blocks;
    } else if (s.kind === 'message') {
      const messages = [...out.messages];
      const m = messages[s.message];
      if (!m) continue;
      const blocks = [...contentBlocks(m.content)];
      blocks[s.block] = mark(blocks[s.block], s.ttl);
      messages[s.message] = { ...m, content: blocks };
      out.messages = messages;
    }
  }
  return out as unknown as SimParams;
}

function lastUserMessages(params: SimParams, n: number): number[] {
  const out: number[] = [];
  for (let m = params.messages.length - 1; m >= 0 && out.length < n; m--) {
    if (params.messages[m]?.role === 'user' && lastMarkableIn(params, m) >= 0) out.push(m);
  }
  return out.reverse();
}

function baseline(id: BaselineId, label: string, description: string, apply: (p: SimParams) => SimParams): Baseline {
  return Object.freeze({ id, label, description, apply });
}

/** The baselines, by id, in report order. */
export const BASELINES: readonly Baseline[] = Object.freeze([
  baseline('none', 'no caching', 'No markers at all.', (p) => stripCacheControl(p)),
  baseline('envelope', 'envelope only', 'One 5m marker on the last system block (the last tool if there is no system).', (p) =>
    placeMarkers(p, [envelopeSlot(p, '5m')]),
  ),
  baseline('auto', 'automatic caching', 'Top-level cache_control: the API marks the last cacheable block.', (p) => ({
    ...stripCacheControl(p),
    cache_control: { type: 'ephemeral' },
  })),
  baseline('system_last', 'system + last block', 'The last system block and the last message block, 5m (common middleware default).', (p) =>
    placeMarkers(p, [envelopeSlot(p, '5m'), lastMessageSlot(p, '5m')]),
  ),
  baseline(
    'system1h_last',
    '2×1h system + last',
    'The two last system blocks (the one block if there is only one) with ttl 1h, then the last message block, 5m.',
    (p) => {
      const n = systemBlocks(p).length;
      return placeMarkers(p, [systemSlot(p, n - 2, '1h'), systemSlot(p, n - 1, '1h'), lastMessageSlot(p, '5m')]);
    },
  ),
  baseline(
    'ide4',
    'tools + system + last 2 messages',
    'The last tool, the last system block, and the last block of each of the two last messages, all 5m (IDE agents).',
    (p) => {
      const last = p.messages.length - 1;
      const t = lastTool(p);
      return placeMarkers(p, [
        t >= 0 ? { kind: 'tools', index: t, ttl: '5m' } : null,
        lastSystemSlot(p, '5m'),
        messageSlot(p, last - 1, '5m'),
        lastMessageSlot(p, '5m'),
      ]);
    },
  ),
  baseline(
    'system2_last2',
    'first 2 system + last 2 messages',
    'The first two system blocks and the last block of each of the two last messages, all 5m.',
    (p) => {
      const last = p.messages.length - 1;
      return placeMarkers(p, [systemSlot(p, 0, '5m'), systemSlot(p, 1, '5m'), messageSlot(p, last - 1, '5m'), lastMessageSlot(p, '5m')]);
    },
  ),
  baseline(
    'system_last2user',
    'system + last 2 user messages',
    'The last system block and the last block of each of the two last user messages, all 5m.',
    (p) => placeMarkers(p, [envelopeSlot(p, '5m'), ...lastUserMessages(p, 2).map((m) => messageSlot(p, m, '5m'))]),
  ),
]);

/** A baseline by id. */
export function baselineById(id: BaselineId): Baseline {
  return BASELINES.find((b) => b.id === id) as Baseline;
}
