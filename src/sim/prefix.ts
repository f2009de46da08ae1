/**
 * A request's prefix as the provider sees it: every block in render order
 * (tools → system → messages) with its cumulative identity hash and prefix
 * token count, the positions the 20-position lookback counts, and the cache
 * markers (validated the way the API validates them).
 *
 * Identity decisions (see docs/simulator.md):
 * - A block's identity is the canonical JSON of the block with `cache_control`
 *   removed (the marker is not part of the key). The block's own fields are
 *   key-sorted (the API renders them through a fixed template); nested values
 *   (tool inputs, schemas) keep their key order, because the API serializes
 *   them as sent and a reordered `input` is a documented silent invalidator.
 * - A string `system` or string message `content` is the same as one text block.
 * - The chain starts from the model id, crosses a tier salt before system
 *   (`speed`) and before messages (`tool_choice`, `thinking`,
 *   `output_config.effort`), the documented invalidators of those tiers, and
 *   tags each message block with its role and whether it starts a message, so
 *   moving a block between messages changes every hash after it.
 * - Tools with `defer_loading: true` are not part of the prefix.
 * - On models that do not keep thinking (`profile.keepsThinking === false`),
 *   thinking blocks before the last user turn that is not only tool results
 *   are stripped, as the API does.
 */
import { contentBlocks, withoutMarker } from '../internal/blocks.js';
import { sha256Hex } from '../internal/hash.js';
import type { ModelProfile } from '../models/profiles.js';
import type { CacheTtl, CountTokens, SimParams, SimRejection, Tier } from './types.js';

// TYPES

/** One block of the prefix. */
export interface PrefixBlock {
  readonly tier: Tier;
  readonly path: string;
  readonly type: string;
  /** Message index, or -1 for tools and system. */
  readonly message: number;
  readonly role: string | null;
  readonly marker: { readonly ttl: CacheTtl } | null;
  /** False for blocks that may not carry a marker (thinking, redacted thinking, empty text). */
  readonly markable: boolean;
  readonly tokens: number;
  /** Tokens of the prefix up to and including this block. */
  readonly cumTokens: number;
  /** Cumulative identity of the prefix up to and including this block. */
  readonly hash: string;
  readonly position: number;
}

/** One position of the lookback window: a block, or a run of tool_use / tool_result blocks. */
export interface PrefixPosition {
  readonly index: number;
  readonly tier: Tier;
  /** Index of the position's last block. */
  readonly last: number;
  readonly hash: string;
  readonly cumTokens: number;
}

/** A cache marker: an explicit marker or the automatic one. */
export interface PrefixMarker {
  readonly block: number;
  readonly path: string;
  readonly tier: Tier;
  readonly position: number;
  readonly ttl: CacheTtl;
  readonly tokens: number;
  readonly hash: string;
  readonly auto: boolean;
}

/** A request's prefix. */
export interface Prefix {
  /** The cache scope (model id). */
  readonly scope: string;
  readonly blocks: readonly PrefixBlock[];
  readonly positions: readonly PrefixPosition[];
  readonly markers: readonly PrefixMarker[];
  readonly totalTokens: number;
  /** The chain value after the tools tier and after the system tier (salts included). */
  readonly toolsEnd: string;
  readonly systemEnd: string;
  /** Set when the API would answer 400; the rest is still filled in. */
  readonly rejection: SimRejection | null;
}

/** The API's maximum number of cache markers per request. */
export const MAX_CACHE_POINTS = 4;

/** The API's 400 texts (quoted from real responses; see anthropic-prompt-cache.md). */
export const REJECTION = {
  tooMany: (n: number) => `A maximum of ${MAX_CACHE_POINTS} blocks with cache_control may be provided. Found ${n}.`,
  ttlOrder: "a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block",
  emptyText: 'cache_control cannot be set for empty text blocks',
  thinking: (path: string, type: string) => `${path}.${type}.cache_control: Extra inputs are not permitted`,
  badTtl: (path: string, ttl: unknown) => `${path}.cache_control.ttl: Input should be '5m' or '1h' (got ${JSON.stringify(ttl)})`,
  autoConflict: (explicit: CacheTtl, auto: CacheTtl) =>
    `cache_control: the top-level cache_control (ttl='${auto}') conflicts with the explicit ttl='${explicit}' on the last cacheable block`,
} as const;

// IMPLEMENTATION

/**
 * Memo of per-block identity and token count. Keyed by the block object (a
 * renderer shares unchanged blocks between requests) and by the block's
 * canonical text (requests parsed from a trace are fresh objects each time),
 * so every distinct block is hashed and counted once. Share one memo between
 * simulators that use the same counter (see `SimulatorOptions.blockMemo` in simulator.ts).
 */
export class BlockMemo {
  readonly #count: CountTokens;
  readonly #byObject = new WeakMap<object, BlockInfo>();
  readonly #byText = new Map<string, BlockInfo>();
  readonly #chains = new WeakMap<object, { prev: string; tag: string; hash: string }>();

  constructor(count: CountTokens) {
    this.#count = count;
  }

  /**
   * The chain value after `block`, given the value before it and its boundary tag. Cached
   * per block object: an unchanged block at an unchanged place costs one lookup.
   */
  chain(block: unknown, prev: string, tag: string): string {
    const isObject = block !== null && typeof block === 'object';
    if (isObject) {
      const hit = this.#chains.get(block);
      if (hit && hit.prev === prev && hit.tag === tag) return hit.hash;
    }
    const hash = chain(prev, tag, this.info(block).digest);
    if (isObject) this.#chains.set(block, { prev, tag, hash });
    return hash;
  }

  /** Digest and tokens of a block, counted without its marker. */
  info(block: unknown): BlockInfo {
    const isObject = block !== null && typeof block === 'object';
    if (isObject) {
      const hit = this.#byObject.get(block);
      if (hit) return hit;
    }
    const canonical = canonicalBlock(block);
    let info = this.#byText.get(canonical);
    if (!info) {
      info = { digest: sha(canonical), tokens: this.#count(withoutMarker(block)) };
      this.#byText.set(canonical, info);
    }
    if (isObject) this.#byObject.set(block, info);
    return info;
  }
}

/** A block's own digest and its token count. */
export interface BlockInfo {
  readonly digest: string;
  readonly tokens: number;
}

function sha(text: string): string {
  return sha256Hex(text).slice(0, 32);
}

/**
 * The chain step: two independent 53-bit string hashes (cyrb53) of the
 * previous value, the boundary tag and the block digest, ~106 bits. A native
 * sha256 per block and request dominated the run time on long sessions; the
 * inputs here are short and already digested, so a fast mixing hash is enough.
 */
function chain(prev: string, tag: string, digest: string): string {
  const text = `${prev}|${tag}|${digest}`;
  return cyrb53(text, 0x9e3779b9).toString(36).padStart(11, '0') + cyrb53(text, 0x85ebca6b).toString(36).padStart(11, '0');
}

function cyrb53(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Canonical text of a block: own keys sorted, nested values as sent, markers removed everywhere. */
export function canonicalBlock(block: unknown): string {
  if (block === null || typeof block !== 'object' || Array.isArray(block)) return JSON.stringify(nested(block)) ?? 'null';
  const b = block as Record<string, unknown>;
  const keys = Object.keys(b)
    .filter((k) => k !== 'cache_control' && b[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${JSON.stringify(nested(b[k])) ?? 'null'}`).join(',')}}`;
}

function nested(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(nested);
  if (value === null || typeof value !== 'object') return value;
  if (!('cache_control' in value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'cache_control') out[k] = nested(v);
  return out;
}

function blockType(block: unknown): string {
  if (block !== null && typeof block === 'object' && typeof (block as { type?: unknown }).type === 'string') {
    return (block as { type: string }).type;
  }
  return 'tool';
}

/**
 * Whether a block may carry `cache_control`: thinking, redacted thinking, empty text and the beta `fallback` and
 * `mcp_tool_listing` blocks may not (SDK 1.14's request types give those four no `cache_control`).
 */
export function isMarkable(block: unknown): boolean {
  const type = blockType(block);
  if (type === 'thinking' || type === 'redacted_thinking' || type === 'fallback' || type === 'mcp_tool_listing') return false;
  if (type === 'text' && (block as { text?: unknown }).text === '') return false;
  return true;
}

function markerOf(block: unknown): unknown {
  if (block === null || typeof block !== 'object') return undefined;
  return (block as { cache_control?: unknown }).cache_control ?? undefined;
}

function isThinking(block: unknown): boolean {
  const t = blockType(block);
  return t === 'thinking' || t === 'redacted_thinking';
}

/** Index of the last user message that is not only tool results (older models strip thinking before it). */
function lastPlainUserTurn(messages: SimParams['messages']): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== 'user') continue;
    const blocks = contentBlocks(m.content);
    if (blocks.some((b) => blockType(b) !== 'tool_result')) return i;
  }
  return -1;
}

interface RawBlock {
  readonly tier: Tier;
  readonly path: string;
  readonly block: unknown;
  readonly message: number;
  readonly role: string | null;
  readonly startsMessage: boolean;
}

function rawBlocks(params: SimParams, keepsThinking: boolean): RawBlock[] {
  const out: RawBlock[] = [];
  (params.tools ?? []).forEach((tool, i) => {
    if ((tool as { defer_loading?: unknown }).defer_loading === true) return;
    out.push({ tier: 'tools', path: `tools.${i}`, block: tool, message: -1, role: null, startsMessage: false });
  });
  const system = params.system;
  if (typeof system === 'string') {
    if (system !== '') out.push({ tier: 'system', path: 'system', block: { type: 'text', text: system }, message: -1, role: null, startsMessage: false });
  } else {
    (system ?? []).forEach((b, i) => {
      out.push({ tier: 'system', path: `system.${i}`, block: b, message: -1, role: null, startsMessage: false });
    });
  }
  const stripBefore = keepsThinking ? -1 : lastPlainUserTurn(params.messages);
  params.messages.forEach((m, mi) => {
    const blocks = contentBlocks(m.content);
    const isString = typeof m.content === 'string';
    let first = true;
    blocks.forEach((b, bi) => {
      if (mi < stripBefore && m.role === 'assistant' && isThinking(b)) return;
      out.push({
        tier: 'messages',
        path: isString ? `messages.${mi}.content` : `messages.${mi}.content.${bi}`,
        block: b,
        message: mi,
        role: m.role,
        startsMessage: first,
      });
      first = false;
    });
  });
  return out;
}

/** Salts: the non-block request fields the docs list as invalidating a tier. */
function systemSalt(params: SimParams): string {
  return canonicalBlock({ speed: params.speed ?? 'standard' });
}

function messagesSalt(params: SimParams): string {
  const p = params as SimParams & { output_config?: { effort?: unknown } | null };
  return canonicalBlock({
    tool_choice: params.tool_choice ?? null,
    thinking: params.thinking ?? null,
    effort: p.output_config?.effort ?? null,
  });
}

/** Validates one marker value; returns its ttl, or a rejection. */
function readMarker(path: string, marker: unknown): CacheTtl | SimRejection {
  const ttl = (marker as { ttl?: unknown }).ttl;
  if (ttl === undefined || ttl === null || ttl === '5m') return '5m';
  if (ttl === '1h') return '1h';
  return { status: 400, message: REJECTION.badTtl(path, ttl) };
}

/**
 * Builds the prefix of a request.
 *
 * @param scope the cache scope (model id) the chain starts from
 */
export function buildPrefix(params: SimParams, profile: ModelProfile, scope: string, memo: BlockMemo): Prefix {
  const raws = rawBlocks(params, profile.keepsThinking);
  const blocks: PrefixBlock[] = [];
  const positions: PrefixPosition[] = [];
  let rejection: SimRejection | null = null;
  const reject = (r: SimRejection): void => {
    rejection ??= r;
  };

  let hash = sha(`model:${scope}`);
  let cum = 0;
  let toolsEnd = hash;
  let systemEnd = hash;
  let tier: Tier = 'tools';
  let runKind: string | null = null;
  let runMessage = -2;

  const enterTier = (next: Tier): void => {
    while (tier !== next) {
      if (tier === 'tools') {
        toolsEnd = hash;
        hash = chain(hash, 'tier:system', systemSalt(params));
        tier = 'system';
      } else if (tier === 'system') {
        systemEnd = hash;
        hash = chain(hash, 'tier:messages', messagesSalt(params));
        tier = 'messages';
      } else return;
    }
  };

  for (const raw of raws) {
    enterTier(raw.tier);
    const type = blockType(raw.block);
    const info = memo.info(raw.block);
    const tag = raw.tier === 'messages' ? `${raw.role}:${raw.startsMessage ? 'start' : 'cont'}` : raw.tier;
    hash = memo.chain(raw.block, hash, tag);
    cum += info.tokens;

    const markable = raw.tier === 'tools' ? true : isMarkable(raw.block);
    const marker = markerOf(raw.block);
    let ttl: CacheTtl | null = null;
    if (marker !== undefined) {
      if (!markable) {
        reject({ status: 400, message: type === 'text' ? REJECTION.emptyText : REJECTION.thinking(raw.path, type) });
      } else {
        const read = readMarker(raw.path, marker);
        if (typeof read === 'string') ttl = read;
        else reject(read);
      }
    }

    // Runs of tool_use (in one assistant message) or tool_result (in one user message) are one position.
    const collapsible = raw.tier === 'messages' && (type === 'tool_use' || type === 'tool_result');
    const continuesRun = collapsible && runKind === type && runMessage === raw.message;
    if (!continuesRun) {
      positions.push({ index: positions.length, tier: raw.tier, last: blocks.length, hash, cumTokens: cum });
    } else {
      const p = positions[positions.length - 1] as PrefixPosition;
      positions[positions.length - 1] = { ...p, last: blocks.length, hash, cumTokens: cum };
    }
    runKind = collapsible ? type : null;
    runMessage = raw.message;

    blocks.push({
      tier: raw.tier,
      path: raw.path,
      type,
      message: raw.message,
      role: raw.role,
      marker: ttl ? { ttl } : null,
      markable,
      tokens: info.tokens,
      cumTokens: cum,
      hash,
      position: positions.length - 1,
    });
  }
  enterTier('messages');

  const markers: PrefixMarker[] = [];
  blocks.forEach((b, i) => {
    if (b.marker) markers.push(markerAt(blocks, i, b.marker.ttl, false));
  });

  // Automatic caching: the last cacheable block, walking back over blocks that cannot carry a marker.
  const auto = (params as { cache_control?: unknown }).cache_control;
  if (auto !== undefined && auto !== null) {
    const read = readMarker('cache_control', auto);
    if (typeof read !== 'string') reject(read);
    else {
      let i = blocks.length - 1;
      while (i >= 0 && !(blocks[i] as PrefixBlock).markable) i--;
      if (i >= 0) {
        const explicit = (blocks[i] as PrefixBlock).marker;
        if (explicit && explicit.ttl !== read) reject({ status: 400, message: REJECTION.autoConflict(explicit.ttl, read) });
        else if (!explicit) markers.push(markerAt(blocks, i, read, true));
      }
    }
  }

  markers.sort((a, b) => a.block - b.block);
  if (markers.length > MAX_CACHE_POINTS) reject({ status: 400, message: REJECTION.tooMany(markers.length) });
  let seen5m = false;
  for (const bp of markers) {
    if (bp.ttl === '5m') seen5m = true;
    else if (seen5m) reject({ status: 400, message: REJECTION.ttlOrder });
  }

  return { scope, blocks, positions, markers, totalTokens: cum, toolsEnd, systemEnd, rejection };
}

function markerAt(blocks: readonly PrefixBlock[], i: number, ttl: CacheTtl, auto: boolean): PrefixMarker {
  const b = blocks[i] as PrefixBlock;
  return { block: i, path: auto ? `${b.path} (auto)` : b.path, tier: b.tier, position: b.position, ttl, tokens: b.cumTokens, hash: b.hash, auto };
}
