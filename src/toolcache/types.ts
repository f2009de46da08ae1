/**
 * The public types of the tool cache: what a tool returns, what a call is
 * told, and the cache's options. Declarations only.
 */
import type { CachedContent, ToolCacheStore } from './store.js';

/** What a tool returns: its content, whether it failed, and optionally its own measured duration. */
export interface ToolRunResult {
  readonly content: CachedContent;
  readonly isError?: boolean;
  /** When the tool measured itself (or a replay knows the original time); otherwise measured by the cache. */
  readonly durationMs?: number;
}

/** A tool implementation. Returning bare content means success. Throwing means failure. */
export type ToolRunner<TArgs = unknown> = (
  args: TArgs,
  context: { readonly callId: string },
) => Promise<ToolRunResult | CachedContent> | ToolRunResult | CachedContent;

/** Per call: who is asking (the scope that determines the result) and the call's id. */
export interface ToolCallOptions {
  /** Tenant / user / workspace id. Entries are never shared across scopes. */
  readonly scope: string;
  /** The id of this call (Anthropic `tool_use.id`); hits are re-stamped with it. */
  readonly callId: string;
}

/** What happened in the cache for one call. */
export type CacheStatus =
  | { readonly type: 'hit'; readonly insertedTurn: number; readonly insertedAtMs: number }
  | {
      readonly type: 'miss';
      /** True when an expired entry was found (and removed) rather than none. */
      readonly expired: boolean;
      readonly inserted: boolean;
      /** Why the result was not inserted (`no_content`: the tool returned no content, nothing a hit could replay). */
      readonly notInserted?: 'error' | 'stale_epoch' | 'ttl_zero' | 'store_error' | 'no_content';
      /** This caller joined an identical run that did not settle within `flightTimeoutMs`, and ran the tool itself. */
      readonly flightTimedOut?: true;
    }
  /** Joined an identical run already in flight (here or, through the store, in another process); the content carries the marker. */
  | { readonly type: 'shared' }
  | { readonly type: 'bypass'; readonly reason: 'undeclared' | 'not_cacheable' | 'store_error' | 'degraded' }
  | { readonly type: 'write'; readonly ok: boolean; readonly evicted: readonly string[] };

/** The answer to one call, as the agent loop uses it. */
export interface ToolCallResult {
  readonly tool: string;
  /** The current call's id (a hit is re-stamped with it). */
  readonly callId: string;
  /** The content; a hit or a shared run carries the `[cached]` marker. */
  readonly content: CachedContent;
  readonly isError: boolean;
  /** For a hit: the original run's duration. Otherwise this run's. */
  readonly durationMs: number;
  readonly cache: CacheStatus;
}

export interface ToolCacheOptions {
  /**
   * Where entries live. Default: a {@link MemoryToolCacheStore} of at most
   * `maxEntries` entries (default {@link DEFAULT_MAX_ENTRIES}), from which
   * expired entries are also swept as new ones arrive.
   */
  readonly store?: ToolCacheStore;
  /** LRU bound for the default memory store (`Infinity`: unbounded). Not allowed together with `store`. */
  readonly maxEntries?: number;
  /** Wall clock in ms (second TTLs, durations). Default: `performance.timeOrigin + performance.now()`. */
  readonly now?: () => number;
  /** Initial turn. Default 0. */
  readonly turn?: number;
  /**
   * The session whose turn clock this cache counts (e.g. the conversation id).
   * Turn-TTL entries belong to their session: another session sharing the store
   * neither hits nor deletes them, because turn numbers of two sessions are not
   * comparable. Second-TTL entries are shared by every session. Default: a
   * random id per ToolCache, so turn-TTL entries are never shared; pass the
   * same id in every process that serves one conversation to share them.
   */
  readonly session?: string;
  /** Appended to replayed results. Default `[cached]`. */
  readonly marker?: string;
  /**
   * Singleflight: the longest a caller waits for an identical run started by
   * another caller (in this process or, with a shared store, another one)
   * before running the tool itself; also the lifetime of a distributed claim.
   * With a shared store an in-process joiner waits up to twice this (the run
   * it joined may first wait for another process). Default 30 000 ms.
   */
  readonly flightTimeoutMs?: number;
  /**
   * What a call of a tool never registered does to the cache. `'write'` (the
   * default): it is treated as a write to everything, because the cache cannot
   * know what it changed (a shell running `sed -i`, `mv`, `git checkout`): it
   * runs, then evicts every entry and advances the epoch. `'passthrough'`: it
   * evicts nothing; choose it only if every tool you leave unregistered writes
   * nothing a cached read depends on. Either way, register a harmless tool with
   * an empty policy (`register('WebSearch', {})`) to keep it from evicting.
   */
  readonly undeclared?: 'write' | 'passthrough';
  /**
   * The absolute directory the agent's tools resolve relative paths against (the agent's working directory).
   * Without it the cache cannot tell which absolute path a relative one names, so a write of one kind of path
   * (absolute, or relative) evicts every read of the other kind (docs/tool-cache.md, "Tags"). With it, a
   * relative `file:` path is resolved against it before its tags are derived, so `Edit('src/a.ts')` evicts
   * `Read('/repo/src/a.ts')` and the listing `LS('/repo/src')`, but no longer `Read('/repo/lib/b.ts')`.
   * It must be the directory the tools really use: a wrong one leaves stale answers. Leave it unset when tools
   * run in different directories (a shell that `cd`s). Default: unset.
   *
   * @example
   * ```ts
   * const cache = new ToolCache({ cwd: process.cwd() });
   * cache.register('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
   * cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
   * ```
   */
  readonly cwd?: string;
}

/** A `tool_use` block as it comes from a model response (or a trace). */
export interface ToolUseLike {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}
