/**
 * The provider cache simulator: Anthropic's prompt cache, as documented in
 * anthropic-prompt-cache.md, request by request.
 *
 * Rules implemented (decisions where the docs are silent are marked ◆; all
 * are listed in docs/simulator.md):
 * - Prefix identity at block granularity, tools → system → messages; a
 *   cumulative hash per block, model-scoped; the marker is not part of the key
 *   (prefix.ts).
 * - Positions: one per block, except that a run of consecutive `tool_use`
 *   blocks in one assistant message, or of `tool_result` blocks in one user
 *   message, is one position (the Claude API rule). The window crosses freely
 *   from messages back into system and tools. ◆
 * - Reads: every marker checks its own prefix, then the ends of the
 *   `profile.lookback − 1` positions before its own; the first unexpired entry
 *   is its hit. Every hit entry is refreshed (◆ the docs leave open whether
 *   shorter entries along the way are; we refresh only entries that were hit).
 *   A = the largest hit.
 * - Writes: only at markers, only beyond A, only when the marker's
 *   prefix has at least `profile.minCacheableTokens` tokens (◆ cumulative).
 *   B = the highest 1h marker that writes (A if none), C = the last one
 *   that writes (A if none): reads A, 1h writes B − A, 5m writes C − B,
 *   input total − C. read + writes + input = total, always.
 * - Entries are keyed by prefix hash, independent of TTL ◆: a write with a
 *   longer TTL extends an entry; a read refreshes it with its own TTL (a 5m
 *   entry read by a 1h marker stays 5m: nothing was paid for the upgrade).
 * - Lifetimes run from the request's start `at`; an entry is alive while
 *   `at < written-or-read-at + ttl` (so it is gone at exactly the TTL).
 * - Rejections (400, no usage, no state change): more than 4 markers
 *   (automatic one included), a 1h marker after a 5m one, a marker on a
 *   thinking / redacted_thinking / empty text block, an automatic marker whose
 *   block already has an explicit marker with another TTL; on a model that
 *   binds thinking to its prefix, a thinking block sent back with another
 *   prefix than the request before the one it first came back in (binding.ts).
 * - Not modelled: eviction before the TTL, server-tool automatic markers,
 *   context editing, workspaces (one simulator = one workspace), image
 *   add/remove invalidation.
 */
import { priceUsage } from '../models/pricing.js';
import { resolveProfile, type ModelProfile } from '../models/profiles.js';
import { BlockTokenCache } from '../tokens/counter.js';
import { InferredBinding } from './binding.js';
import { BlockMemo, buildPrefix, type Prefix } from './prefix.js';
import type { MarkerReport, CacheTtl, CountTokens, PrefixChange, RequestExplain, SimParams, SimRequest, SimResult, SimUsage } from './types.js';

/** Whether the request chose `prefix_mismatch_behavior: "drop_block"` (the API then drops invalid thinking instead). */
function dropsInvalidThinking(params: SimParams): boolean {
  const t = params.thinking as { block_binding?: { prefix_mismatch_behavior?: unknown } } | undefined;
  return t?.block_binding?.prefix_mismatch_behavior === 'drop_block';
}

// TYPES

/** Options of {@link CacheSimulator} and the functions built on it. */
export interface SimulatorOptions {
  /** One profile for every request, whatever its `model` (caches stay scoped by `params.model`). */
  readonly profile?: ModelProfile;
  /** Extra or replacement profiles consulted by `resolveProfile` before the built-in table. */
  readonly profiles?: Readonly<Record<string, ModelProfile>>;
  /** Token counter per block; default: a `BlockTokenCache` (cl100k). Must be pure. */
  readonly countTokens?: CountTokens;
  /**
   * An entry becomes readable this long after the start of the request that wrote it
   * (the API: "once the first response begins"). Default 0: readable by any request
   * starting at or after the writer's start. Set it to model parallel sends.
   */
  readonly readableAfterMs?: number;
  /**
   * Per-block identity and token memo to share between simulators that use the same
   * counter (`compareStrategies` shares one across all strategies). Default: a new one.
   */
  readonly blockMemo?: BlockMemo;
}

const GC_SLACK_MS = 10 * 60_000;

/** One cache entry, as {@link CacheSimulator.entries} lists it. */
export interface CacheEntry {
  readonly hash: string;
  readonly scope: string;
  readonly ttl: CacheTtl;
  /** Prefix tokens the entry holds. */
  readonly tokens: number;
  readonly writtenAt: number;
  readonly expiresAt: number;
  readonly readableFrom: number;
}

interface Hit {
  readonly marker: number;
  readonly hash: string;
  readonly position: number;
  readonly tokens: number;
  readonly back: number;
}

// CLASS

/**
 * A stateful simulation of one workspace's prompt cache. Feed it requests in
 * start order; each answer is the usage the API would report, its price, and
 * the plan that explains it.
 *
 * @example
 * const sim = new CacheSimulator();
 * const r = sim.send({ model: 'claude-sonnet-4-6', max_tokens: 1024, system, messages }, Date.now());
 * if (!r.rejected) console.log(r.usage.cache_read_input_tokens, r.cost.total, r.explain.bust);
 */
export class CacheSimulator {
  readonly #options: SimulatorOptions;
  readonly #memo: BlockMemo;
  readonly #entries = new Map<string, CacheEntry>();
  #previous: { readonly model: string; readonly prefix: Prefix } | null = null;
  readonly #binding = new InferredBinding();
  #index = 0;
  #latest = Number.NEGATIVE_INFINITY;

  constructor(options: SimulatorOptions = {}) {
    this.#options = options;
    this.#memo = options.blockMemo ?? new BlockMemo(options.countTokens ?? defaultCounter());
  }

  /** The profile a request is simulated with. */
  profileFor(model: string): ModelProfile {
    return this.#options.profile ?? resolveProfile(model, this.#options.profiles ?? {});
  }

  /** The prefix of a request as the simulator sees it (blocks, positions, markers), without sending it. */
  prefixOf(params: SimParams): Prefix {
    const profile = this.profileFor(params.model);
    return buildPrefix(params, profile, this.#scope(params.model, profile), this.#memo);
  }

  /** The entries alive at `at` (all of them when `at` is omitted), oldest write first. */
  entries(at?: number): readonly CacheEntry[] {
    const all = [...this.#entries.values()];
    return (at === undefined ? all : all.filter((e) => at < e.expiresAt)).sort((a, b) => a.writtenAt - b.writtenAt);
  }

  /** Forgets every entry and the previous request. */
  reset(): void {
    this.#entries.clear();
    this.#previous = null;
    this.#latest = Number.NEGATIVE_INFINITY;
    this.#binding.reset();
  }

  /**
   * Simulates one request starting at `at` (ms since the epoch).
   *
   * @param outputTokens the response's output tokens, if known (priced separately)
   */
  send(params: SimParams, at: number, outputTokens = 0): SimResult {
    const index = this.#index++;
    const profile = this.profileFor(params.model);
    const prefix = buildPrefix(params, profile, this.#scope(params.model, profile), this.#memo);
    if (prefix.rejection) {
      return { index, at, model: params.model, rejected: prefix.rejection, usage: null, cost: null, explain: null };
    }
    // Preserved thinking (models that bind thinking to its prefix, sim/binding.ts): a block sent back with a changed prefix.
    if (profile.bindsThinking && !dropsInvalidThinking(params)) {
      const bound = this.#binding.check(params);
      if (bound !== undefined) return { index, at, model: params.model, rejected: { status: 400, message: bound }, usage: null, cost: null, explain: null };
      // A pre-warming request (max_tokens 0) produces no response: the blocks of the next one were not its.
      if (params.max_tokens !== 0) this.#binding.sent(params);
    }
    this.#expire(at);
    if (profile.caching?.kind === 'automatic') {
      return this.#sendAutomatic(index, params, at, outputTokens, profile, prefix, profile.caching.granularity);
    }

    // Reads: each marker's window, its own prefix first, then earlier position ends.
    const hits: Hit[] = [];
    prefix.markers.forEach((bp, i) => {
      const candidates: { hash: string; position: number; tokens: number }[] = [{ hash: bp.hash, position: bp.position, tokens: bp.tokens }];
      for (let q = bp.position - 1; q >= 0 && q > bp.position - profile.lookback; q--) {
        const pos = prefix.positions[q];
        if (pos) candidates.push({ hash: pos.hash, position: q, tokens: pos.cumTokens });
      }
      for (const c of candidates) {
        if (this.#alive(c.hash, at)) {
          hits.push({ marker: i, hash: c.hash, position: c.position, tokens: c.tokens, back: bp.position - c.position });
          return;
        }
      }
    });
    const read = hits.reduce<Hit | null>((best, h) => (best === null || h.tokens > best.tokens ? h : best), null);
    const A = read?.tokens ?? 0;

    // Bust: a warm entry for a longer prefix of this request than what was read.
    const missed = this.#longestWarm(prefix, at);
    const bust = missed !== null && missed.tokens > A;

    // Writes: markers beyond A with enough tokens.
    const writers = prefix.markers.map((bp, i) => ({ bp, i })).filter(({ bp }) => bp.tokens > A && bp.tokens >= profile.minCacheableTokens);
    const oneHour = writers.filter(({ bp }) => bp.ttl === '1h');
    const B = oneHour.length > 0 ? Math.max(...oneHour.map(({ bp }) => bp.tokens)) : A;
    const C = writers.length > 0 ? Math.max(...writers.map(({ bp }) => bp.tokens)) : A;
    // The billing split (A/B/C of the docs): read up to A, 1h writes up to B, 5m writes up to C, the rest input.
    const usage: SimUsage = {
      input_tokens: prefix.totalTokens - C,
      cache_creation_input_tokens: C - A,
      cache_read_input_tokens: A,
      cache_creation: { ephemeral_5m_input_tokens: C - B, ephemeral_1h_input_tokens: B - A },
      output_tokens: outputTokens,
    };

    // State: refresh hits, then write.
    for (const h of hits) {
      const e = this.#entries.get(h.hash) as CacheEntry;
      this.#entries.set(h.hash, { ...e, expiresAt: Math.max(e.expiresAt, at + profile.ttlMs[e.ttl]) });
    }
    for (const { bp } of writers) {
      const old = this.#entries.get(bp.hash);
      const ttl: CacheTtl = old?.ttl === '1h' && at < old.expiresAt ? '1h' : bp.ttl;
      this.#entries.set(bp.hash, {
        hash: bp.hash,
        scope: prefix.scope,
        ttl,
        tokens: bp.tokens,
        writtenAt: at,
        expiresAt: Math.max(old && at < old.expiresAt ? old.expiresAt : 0, at + profile.ttlMs[bp.ttl]),
        readableFrom: at + (this.#options.readableAfterMs ?? 0),
      });
    }

    const hitOf = new Map(hits.map((h) => [h.marker, h]));
    const writerSet = new Set(writers.map(({ i }) => i));
    const markers: MarkerReport[] = prefix.markers.map((bp, i) => {
      const h = hitOf.get(i);
      const outcome: MarkerReport['outcome'] =
        read && read.marker === i ? 'read' : writerSet.has(i) ? 'write' : h ? 'hit' : bp.tokens <= A ? 'covered' : 'below_minimum';
      return {
        index: i,
        path: bp.path,
        tier: bp.tier,
        position: bp.position,
        ttl: bp.ttl,
        tokens: bp.tokens,
        auto: bp.auto,
        hit: h ? { position: h.position, tokens: h.tokens, back: h.back } : null,
        outcome,
      };
    });
    let lastWrite = A;
    const writes = writers.map(({ bp, i }) => {
      const w = { marker: i, position: bp.position, ttl: bp.ttl, tokens: bp.tokens - lastWrite };
      lastWrite = bp.tokens;
      return w;
    });

    const explain: RequestExplain = {
      positions: prefix.positions.length,
      totalTokens: prefix.totalTokens,
      change: this.#change(params.model, prefix),
      markers,
      read: read ? { marker: read.marker, position: read.position, tokens: read.tokens } : null,
      writes,
      bust,
      missedTokens: bust && missed ? missed.tokens - A : 0,
      missedPosition: bust && missed ? missed.position : null,
    };
    this.#previous = { model: params.model, prefix };
    return { index, at, model: params.model, rejected: null, usage, cost: priceUsage(profile.prices, usage), explain };
  }

  /**
   * Automatic prefix caching (OpenAI before GPT-5.6): no markers. The read is
   * the longest warm prefix at any block boundary, counted in `granularity`
   * steps from the minimum; the whole prompt is then cached (no write
   * premium: what is not read is billed as input). The request's retention
   * class is the top-level marker's TTL (`1h` = extended retention), which
   * is how the OpenAI request converter passes `prompt_cache_retention`.
   */
  #sendAutomatic(index: number, params: SimParams, at: number, outputTokens: number, profile: ModelProfile, prefix: Prefix, granularity: number): SimResult {
    const warm = this.#longestWarm(prefix, at);
    const matched = warm?.tokens ?? 0;
    const A = matched >= profile.minCacheableTokens ? Math.floor(matched / granularity) * granularity : 0;
    const ttl: CacheTtl = (params as { cache_control?: { ttl?: CacheTtl } }).cache_control?.ttl === '1h' ? '1h' : '5m';
    const expiresAt = at + profile.ttlMs[ttl];
    // Everything up to the read is used again (refreshed); everything is written (free).
    for (const b of prefix.blocks) {
      const old = this.#entries.get(b.hash);
      this.#entries.set(b.hash, {
        hash: b.hash,
        scope: prefix.scope,
        ttl,
        tokens: b.cumTokens,
        writtenAt: old && at < old.expiresAt ? old.writtenAt : at,
        expiresAt: Math.max(old && at < old.expiresAt ? old.expiresAt : 0, expiresAt),
        readableFrom: old && at < old.expiresAt ? old.readableFrom : at + (this.#options.readableAfterMs ?? 0),
      });
    }
    const usage: SimUsage = {
      input_tokens: prefix.totalTokens - A,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: A,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: outputTokens,
    };
    const explain: RequestExplain = {
      positions: prefix.positions.length,
      totalTokens: prefix.totalTokens,
      change: this.#change(params.model, prefix),
      markers: [],
      read: warm && A > 0 ? { marker: -1, position: warm.position, tokens: A } : null,
      writes: [],
      bust: false,
      missedTokens: 0,
      missedPosition: null,
    };
    this.#previous = { model: params.model, prefix };
    return { index, at, model: params.model, rejected: null, usage, cost: priceUsage(profile.prices, usage), explain };
  }

  #scope(model: string, profile: ModelProfile): string {
    // With a fixed profile every model shares it, but caches stay model-scoped.
    return this.#options.profile ? model : profile.id;
  }

  #alive(hash: string, at: number): boolean {
    const e = this.#entries.get(hash);
    return e !== undefined && at < e.expiresAt && at >= e.readableFrom;
  }

  #expire(at: number): void {
    // Garbage collection only (liveness is checked against each request's own start). A slack
    // keeps entries a slightly out-of-order send (a fake server's parallel requests) may still see.
    this.#latest = Math.max(this.#latest, at);
    for (const [k, e] of this.#entries) if (e.expiresAt + GC_SLACK_MS <= this.#latest) this.#entries.delete(k);
  }

  #longestWarm(prefix: Prefix, at: number): { position: number; tokens: number } | null {
    for (let i = prefix.blocks.length - 1; i >= 0; i--) {
      const b = prefix.blocks[i];
      if (b && this.#alive(b.hash, at)) return { position: b.position, tokens: b.cumTokens };
    }
    return null;
  }

  #change(model: string, prefix: Prefix): PrefixChange | null {
    const prev = this.#previous;
    if (!prev) return null;
    if (prev.model !== model) return { position: 0, tier: prefix.positions[0]?.tier ?? 'messages', cause: 'model_changed' };
    const a = prev.prefix.positions;
    const b = prefix.positions;
    const n = Math.min(a.length, b.length);
    let first = n;
    for (let i = 0; i < n; i++) {
      if ((a[i] as { hash: string }).hash !== (b[i] as { hash: string }).hash) {
        first = i;
        break;
      }
    }
    if (first === n && b.length >= a.length) return null;
    const cause =
      prev.prefix.toolsEnd !== prefix.toolsEnd ? 'tools_changed' : prev.prefix.systemEnd !== prefix.systemEnd ? 'system_changed' : 'messages_changed';
    return { position: first, tier: b[first]?.tier ?? 'messages', cause };
  }
}

function defaultCounter(): (block: unknown) => number {
  const cache = new BlockTokenCache();
  return (block) => cache.tokens(block);
}

/**
 * Simulates a whole session with a fresh simulator, in the given order.
 *
 * @example
 * const results = simulateAll([{ at: 0, params }, { at: 60_000, params: next }]);
 */
export function simulateAll(requests: readonly SimRequest[], options: SimulatorOptions = {}): SimResult[] {
  const sim = new CacheSimulator(options);
  return requests.map((r) => sim.send(r.params, r.at, r.outputTokens ?? 0));
}
