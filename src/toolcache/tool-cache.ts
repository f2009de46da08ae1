/**
 * The tool-result memoizer. It sits in front of the agent's tools, replays
 * exact repeats of declared read tools, and forgets them on time (TTL in turns
 * or seconds, checked on lookup) and on events (a successful write evicts every
 * entry whose tags intersect its own).
 *
 * Staleness contract: a call never returns content older than a write that
 * completed (its `call()` resolved) before the call started. Three mechanisms
 * keep it:
 * - the epoch guard: a miss reads the store epoch before running the tool and
 *   inserts with `insertIfEpoch`, so a read that raced an invalidation is
 *   returned to its caller but never cached;
 * - singleflight joins only a flight that started at the epoch the joiner sees,
 *   so a call that starts after a write never receives a run that began before it;
 * - a write invalidates only after its tool succeeded, and its `call()` resolves
 *   only after the invalidation did. A write in flight needs no epoch bump at its
 *   start: a read that overlaps it may legitimately see either side, and any
 *   entry inserted before its invalidation is evicted by it.
 * If the store fails, calls pass through to the tool (counted as `storeErrors`);
 * a write whose invalidation failed puts the cache in a degraded state in which
 * reads bypass it until the invalidation is retried successfully.
 */

import { randomUUID } from 'node:crypto';
import type { ToolResultBlockParam } from '@anthropic-ai/sdk/resources/messages/messages';
import { InvalidOptionError } from '../errors.js';
import { toolCacheKey, toolOfKey } from './key.js';
import { MemoryToolCacheStore } from './memory-store.js';
import {
  callDependencies,
  readEntryTags,
  resolvePolicy,
  writeInvalidationTags,
  type ResolvedPolicy,
  type ToolPolicy,
} from './policy.js';
import { SingleFlight } from './singleflight.js';
import { formatStats, StatsRecorder, type ToolCacheStats } from './stats.js';
import type { CachedContent, StoredEntry, ToolCacheStore } from './store.js';

// TYPES

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
      /** Why the result was not inserted. */
      readonly notInserted?: 'error' | 'stale_epoch' | 'ttl_zero' | 'store_error';
    }
  | { readonly type: 'shared' }
  | { readonly type: 'bypass'; readonly reason: 'undeclared' | 'not_cacheable' | 'store_error' | 'degraded' }
  | { readonly type: 'write'; readonly ok: boolean; readonly evicted: readonly string[] };

/** The answer to one call, as the agent loop uses it. */
export interface ToolCallResult {
  readonly tool: string;
  /** The current call's id (a hit is re-stamped with it). */
  readonly callId: string;
  /** The content; a hit carries the `[cached]` marker. */
  readonly content: CachedContent;
  readonly isError: boolean;
  /** For a hit: the original run's duration. Otherwise this run's. */
  readonly durationMs: number;
  readonly cache: CacheStatus;
}

export interface ToolCacheOptions {
  /** Where entries live. Default: a {@link MemoryToolCacheStore} (bounded by `maxEntries` when given). */
  readonly store?: ToolCacheStore;
  /** LRU bound for the default memory store. Not allowed together with `store`. */
  readonly maxEntries?: number;
  /** Wall clock in ms (second TTLs, durations). Default: `performance.timeOrigin + performance.now()`. */
  readonly now?: () => number;
  /** Initial turn. Default 0. */
  readonly turn?: number;
  /** Appended to replayed results. Default `[cached]`. */
  readonly marker?: string;
  /** Distributed singleflight (stores with `flight`): claim lifetime and the longest wait for another runner. Default 30 000 ms. */
  readonly flightTimeoutMs?: number;
}

/** A `tool_use` block as it comes from a model response (or a trace). */
export interface ToolUseLike {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

interface FillResult {
  readonly content: CachedContent;
  readonly isError: boolean;
  readonly durationMs: number;
  readonly origin: 'run' | 'remote';
  readonly inserted: boolean;
  readonly notInserted?: 'error' | 'stale_epoch' | 'store_error';
}

interface ReadCall {
  readonly name: string;
  readonly policy: ResolvedPolicy;
  readonly key: string;
  readonly scope: string;
  readonly args: unknown;
  readonly run: ToolRunner<never>;
  readonly callId: string;
}

// IMPLEMENTATION

const defaultNow = (): number => performance.timeOrigin + performance.now();

function isRunResult(v: unknown): v is ToolRunResult {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && 'content' in v;
}

function copyContent(c: CachedContent): CachedContent {
  return typeof c === 'string' ? c : c.map((p) => ({ ...p }));
}

function withMarker(c: CachedContent, marker: string): CachedContent {
  if (typeof c === 'string') return c.length === 0 ? marker : `${c}\n${marker}`;
  return [...c.map((p) => ({ ...p })), { type: 'text' as const, text: marker }];
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Memoizes declared read tools, invalidates on declared writes, and passes
 * every other tool through untouched.
 *
 * @example
 * ```ts
 * const cache = new ToolCache();
 * cache.register('Read', { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
 * cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
 * const r = await cache.call('Read', { path: 'src/main.ts' }, readFile, { scope: 'tenant-1', callId: 'toolu_01' });
 * cache.advanceTurn();
 * ```
 */
export class ToolCache {
  readonly store: ToolCacheStore;
  readonly #policies = new Map<string, ResolvedPolicy>();
  readonly #flights = new SingleFlight<FillResult>();
  readonly #stats = new StatsRecorder();
  readonly #now: () => number;
  readonly #marker: string;
  readonly #flightTimeoutMs: number;
  /** Tags of successful writes whose invalidation the store refused; reads bypass while non-empty. */
  readonly #pending = new Set<string>();
  #turn: number;

  constructor(options: ToolCacheOptions = {}) {
    if (options.store !== undefined && options.maxEntries !== undefined) {
      throw new InvalidOptionError('maxEntries', 'applies to the default memory store only; pass it to your store instead');
    }
    const store = options.store ?? new MemoryToolCacheStore(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries });
    this.store = store;
    if (store instanceof MemoryToolCacheStore) {
      store.onEvict((key, reason) => this.#stats.evicted(toolOfKey(key), reason));
    }
    this.#now = options.now ?? defaultNow;
    this.#marker = options.marker ?? '[cached]';
    this.#flightTimeoutMs = options.flightTimeoutMs ?? 30_000;
    if (!Number.isFinite(this.#flightTimeoutMs) || this.#flightTimeoutMs <= 0) {
      throw new InvalidOptionError('flightTimeoutMs', `must be a positive number, got ${String(options.flightTimeoutMs)}`);
    }
    this.#turn = 0;
    if (options.turn !== undefined) this.setTurn(options.turn);
  }

  /** Declares a tool's policy. Tools never registered are passed through untouched. */
  register<TArgs>(name: string, policy: ToolPolicy<TArgs>): this {
    if (this.#policies.has(name)) throw new InvalidOptionError(`tools.${name}`, 'is already registered; register each tool once');
    this.#policies.set(name, resolvePolicy(name, policy as ToolPolicy<never>));
    return this;
  }

  /** The resolved policy of a tool, or undefined when it was not registered. */
  policy(name: string): ResolvedPolicy | undefined {
    return this.#policies.get(name);
  }

  /** The turn clock (set by the caller). */
  get turn(): number {
    return this.#turn;
  }

  /** Advances the turn clock (by 1 by default). */
  advanceTurn(by = 1): number {
    if (!Number.isSafeInteger(by) || by < 0) throw new InvalidOptionError('advanceTurn', `must advance by a non-negative integer, got ${String(by)}`);
    this.#turn += by;
    return this.#turn;
  }

  /** Sets the turn clock. It never goes backwards: that would make old entries look young. */
  setTurn(turn: number): void {
    if (!Number.isSafeInteger(turn) || turn < 0) throw new InvalidOptionError('turn', `must be a non-negative integer, got ${String(turn)}`);
    if (turn < this.#turn) throw new InvalidOptionError('turn', `cannot go backwards (from ${this.#turn} to ${turn})`);
    this.#turn = turn;
  }

  /** Counters so far (an immutable snapshot). */
  stats(): ToolCacheStats {
    return this.#stats.snapshot();
  }

  /** The counters as a printable table. */
  formatStats(): string {
    return formatStats(this.#stats.snapshot());
  }

  /**
   * Runs one tool call through the cache. Rejects with the tool's own error when
   * it throws (all callers sharing that run receive the same error).
   *
   * @example
   * ```ts
   * const r = await cache.call('Read', { path: 'a.ts' }, ({ path }) => fs.readFile(path, 'utf8'), { scope: 'u1', callId: 'toolu_9' });
   * r.cache.type; // 'hit' | 'miss' | 'shared' | 'bypass' | 'write'
   * ```
   */
  async call<TArgs>(name: string, args: TArgs, run: ToolRunner<TArgs>, options: ToolCallOptions): Promise<ToolCallResult> {
    if (typeof options?.scope !== 'string') throw new InvalidOptionError('scope', `${name}: every call needs a string scope (tenant/user id); use '' for a single-tenant agent`);
    if (typeof options.callId !== 'string') throw new InvalidOptionError('callId', `${name}: every call needs its call id`);
    const policy = this.#policies.get(name);
    const runner = run as ToolRunner<never>;
    if (policy === undefined || policy.kind === 'passthrough') {
      this.#stats.add(name, 'bypassed');
      const out = await this.#execute(runner, args, options.callId);
      return { tool: name, callId: options.callId, ...out, cache: { type: 'bypass', reason: policy === undefined ? 'undeclared' : 'not_cacheable' } };
    }
    if (policy.kind === 'write') return this.#write(name, policy, args, runner, options.callId);

    const key = toolCacheKey(name, args, options.scope);
    return this.#read({ name, policy, key, scope: options.scope, args, run: runner, callId: options.callId });
  }

  /**
   * Anthropic glue: runs a model response's `tool_use` blocks in parallel (one
   * wave) through the cache and returns the `tool_result` blocks for the next
   * user message, in the order of the `tool_use` blocks. A tool that throws, or
   * has no handler, answers with `is_error: true`. The turn clock is the caller's
   * to advance.
   *
   * @example
   * ```ts
   * const results = await cache.runToolUses(response.content, { Read: readFile, Edit: editFile }, { scope: 'u1' });
   * messages.push({ role: 'user', content: results });
   * ```
   */
  async runToolUses<TBlock extends { readonly type: string }>(
    blocks: readonly TBlock[],
    handlers: Readonly<Record<string, ToolRunner<never>>>,
    options: { readonly scope: string; readonly onResult?: (result: ToolCallResult) => void },
  ): Promise<ToolResultBlockParam[]> {
    const uses = blocks.filter((b) => b.type === 'tool_use') as unknown as ToolUseLike[];
    return Promise.all(
      uses.map(async (use): Promise<ToolResultBlockParam> => {
        const handler = Object.hasOwn(handlers, use.name) ? handlers[use.name] : undefined;
        if (handler === undefined) {
          return { type: 'tool_result', tool_use_id: use.id, content: `Error: no handler for tool "${use.name}"`, is_error: true };
        }
        let r: ToolCallResult;
        try {
          r = await this.call(use.name, use.input, handler as ToolRunner<unknown>, { scope: options.scope, callId: use.id });
        } catch (e) {
          return { type: 'tool_result', tool_use_id: use.id, content: `Error: ${errorMessage(e)}`, is_error: true };
        }
        // Outside the try: a throwing observer is the caller's bug, not a tool failure to report to the model.
        options.onResult?.(r);
        const block: ToolResultBlockParam = { type: 'tool_result', tool_use_id: r.callId, content: r.content as ToolResultBlockParam['content'] & {} };
        return r.isError ? { ...block, is_error: true } : block;
      }),
    );
  }

  async #execute(run: ToolRunner<never>, args: unknown, callId: string): Promise<{ content: CachedContent; isError: boolean; durationMs: number }> {
    const start = this.#now();
    const out = await (run as ToolRunner<unknown>)(args, { callId });
    const durationMs = this.#now() - start;
    if (isRunResult(out)) return { content: out.content, isError: out.isError === true, durationMs: out.durationMs ?? durationMs };
    return { content: out, isError: false, durationMs };
  }

  /** Retries a failed invalidation; true when the cache is coherent again. */
  async #healthy(): Promise<boolean> {
    if (this.#pending.size === 0) return true;
    const tags = [...this.#pending];
    try {
      const { evicted } = await this.store.invalidate(tags);
      for (const t of tags) this.#pending.delete(t);
      for (const k of evicted) this.#stats.evicted(toolOfKey(k), 'write');
      return this.#pending.size === 0;
    } catch {
      this.#stats.add('(store)', 'storeErrors');
      return false;
    }
  }

  async #write(name: string, policy: ResolvedPolicy, args: unknown, run: ToolRunner<never>, callId: string): Promise<ToolCallResult> {
    // Computed before the run so a bad extractor fails before any side effect.
    const tags = writeInvalidationTags(callDependencies(policy, args));
    this.#stats.add(name, 'bypassed');
    let out: { content: CachedContent; isError: boolean; durationMs: number };
    try {
      out = await this.#execute(run, args, callId);
    } catch (e) {
      this.#stats.add(name, 'failedWrites');
      throw e;
    }
    if (out.isError) {
      this.#stats.add(name, 'failedWrites');
      return { tool: name, callId, ...out, cache: { type: 'write', ok: false, evicted: [] } };
    }
    this.#stats.add(name, 'writes');
    let evicted: readonly string[] = [];
    await this.#healthy();
    try {
      evicted = (await this.store.invalidate(tags)).evicted;
      for (const k of evicted) this.#stats.evicted(toolOfKey(k), 'write');
    } catch {
      this.#stats.add(name, 'storeErrors');
      // Remembered before this call resolves, so every read that starts after it bypasses the cache.
      for (const t of tags) this.#pending.add(t);
    }
    return { tool: name, callId, ...out, cache: { type: 'write', ok: true, evicted } };
  }

  #expired(entry: StoredEntry, policy: ResolvedPolicy): boolean {
    const now = this.#now();
    // An entry from the future (another session's turn clock ran ahead of ours, or the wall
    // clock went back) has an age we cannot know: treat it as expired, never as fresh.
    if (entry.insertedTurn > this.#turn && (entry.ttlTurns !== undefined || policy.ttlTurns !== undefined)) return true;
    if (entry.insertedAtMs > now && (entry.expiresAtMs !== undefined || policy.ttlMs !== undefined)) return true;
    if (entry.ttlTurns !== undefined && this.#turn - entry.insertedTurn >= entry.ttlTurns) return true;
    if (entry.expiresAtMs !== undefined && now >= entry.expiresAtMs) return true;
    if (entry.ttlTurns === undefined && entry.expiresAtMs === undefined) return true;
    // The current policy applies too, in case it is stricter than the one the entry was written under.
    if (policy.ttlTurns !== undefined && this.#turn - entry.insertedTurn >= policy.ttlTurns) return true;
    if (policy.ttlMs !== undefined && now - entry.insertedAtMs >= policy.ttlMs) return true;
    return false;
  }

  #wellFormed(entry: StoredEntry, call: ReadCall): boolean {
    return (
      typeof entry === 'object' &&
      entry !== null &&
      entry.key === call.key &&
      entry.tool === call.name &&
      entry.scope === call.scope &&
      (typeof entry.content === 'string' || Array.isArray(entry.content)) &&
      typeof entry.durationMs === 'number' &&
      Number.isFinite(entry.insertedTurn) &&
      Number.isFinite(entry.insertedAtMs)
    );
  }

  /** Looks `key` up; removes expired and malformed entries on sight. */
  async #lookup(call: ReadCall): Promise<{ entry?: StoredEntry; expired: boolean }> {
    const entry = await this.store.get(call.key);
    if (entry === undefined) return { expired: false };
    let reason: 'expired' | 'corrupt' | undefined;
    if (!this.#wellFormed(entry, call)) reason = 'corrupt';
    else if (this.#expired(entry, call.policy)) reason = 'expired';
    if (reason === undefined) return { entry, expired: false };
    try {
      if (await this.store.delete(call.key)) this.#stats.evicted(call.name, reason);
    } catch {
      this.#stats.add(call.name, 'storeErrors');
    }
    return { expired: reason === 'expired' };
  }

  #bypass(call: ReadCall, reason: 'store_error' | 'degraded'): Promise<ToolCallResult> {
    this.#stats.add(call.name, 'bypassed');
    return this.#execute(call.run, call.args, call.callId).then((out) => ({
      tool: call.name,
      callId: call.callId,
      ...out,
      cache: { type: 'bypass', reason },
    }));
  }

  async #read(call: ReadCall): Promise<ToolCallResult> {
    const { name, policy, callId } = call;
    if (policy.ttlTurns === 0 || policy.ttlMs === 0) {
      this.#stats.add(name, 'misses');
      const out = await this.#execute(call.run, call.args, callId);
      return { tool: name, callId, ...out, cache: { type: 'miss', expired: false, inserted: false, notInserted: 'ttl_zero' } };
    }
    if (!(await this.#healthy())) return this.#bypass(call, 'degraded');

    let found: { entry?: StoredEntry; expired: boolean };
    try {
      found = await this.#lookup(call);
    } catch {
      this.#stats.add(name, 'storeErrors');
      return this.#bypass(call, 'store_error');
    }
    if (found.entry !== undefined) {
      const e = found.entry;
      this.#stats.add(name, 'hits');
      this.#stats.add(name, 'timeSavedMs', e.durationMs);
      return {
        tool: name,
        callId,
        content: withMarker(e.content, this.#marker),
        isError: false,
        durationMs: e.durationMs,
        cache: { type: 'hit', insertedTurn: e.insertedTurn, insertedAtMs: e.insertedAtMs },
      };
    }
    // Only a miss needs the tags (to insert); an extractor error is the caller's bug, not a store error.
    const tags = readEntryTags(callDependencies(policy, call.args));
    let epoch: number;
    try {
      epoch = await this.store.epoch();
    } catch {
      this.#stats.add(name, 'storeErrors');
      return this.#bypass(call, 'store_error');
    }

    const ticket = this.#flights.run(call.key, epoch, () => this.#fill(call, epoch, tags));
    const r = await ticket.promise;
    if (ticket.shared || r.origin === 'remote') {
      this.#stats.add(name, 'shared');
      return { tool: name, callId, content: copyContent(r.content), isError: r.isError, durationMs: r.durationMs, cache: { type: 'shared' } };
    }
    this.#stats.add(name, 'misses');
    const status: CacheStatus =
      r.notInserted === undefined
        ? { type: 'miss', expired: found.expired, inserted: r.inserted }
        : { type: 'miss', expired: found.expired, inserted: r.inserted, notInserted: r.notInserted };
    return { tool: name, callId, content: r.content, isError: r.isError, durationMs: r.durationMs, cache: status };
  }

  /** One run for a miss (shared by every in-process caller that joins it). */
  async #fill(call: ReadCall, epoch: number, tags: readonly string[]): Promise<FillResult> {
    const flight = this.store.flight;
    let token: string | undefined;
    if (flight !== undefined) {
      token = randomUUID();
      let acquired: boolean;
      try {
        acquired = await flight.acquire(call.key, token, this.#flightTimeoutMs);
      } catch {
        this.#stats.add(call.name, 'storeErrors');
        acquired = true;
        token = undefined;
      }
      if (!acquired) {
        token = undefined;
        const remote = await this.#awaitRemote(call, flight);
        if (remote !== undefined) {
          return { content: remote.content, isError: false, durationMs: remote.durationMs, origin: 'remote', inserted: false };
        }
      }
    }
    try {
      // The turn and time at miss start: the content is at least this fresh, so the TTL counts from here.
      const insertedTurn = this.#turn;
      const insertedAtMs = this.#now();
      const out = await this.#execute(call.run, call.args, call.callId);
      if (out.isError) return { ...out, origin: 'run', inserted: false, notInserted: 'error' };
      const entry: StoredEntry = {
        key: call.key,
        tool: call.name,
        scope: call.scope,
        content: out.content,
        durationMs: out.durationMs,
        insertedTurn,
        insertedAtMs,
        tags,
        ...(call.policy.ttlTurns !== undefined ? { ttlTurns: call.policy.ttlTurns } : { expiresAtMs: insertedAtMs + (call.policy.ttlMs ?? 0) }),
      };
      let inserted: boolean;
      try {
        inserted = await this.store.insertIfEpoch(entry, epoch);
      } catch {
        this.#stats.add(call.name, 'storeErrors');
        return { ...out, origin: 'run', inserted: false, notInserted: 'store_error' };
      }
      if (!inserted) {
        this.#stats.add(call.name, 'staleDrops');
        return { ...out, origin: 'run', inserted: false, notInserted: 'stale_epoch' };
      }
      return { ...out, origin: 'run', inserted: true };
    } finally {
      if (token !== undefined && flight !== undefined) {
        try {
          await flight.release(call.key, token);
        } catch {
          this.#stats.add(call.name, 'storeErrors');
        }
      }
    }
  }

  /**
   * Another process runs this call: wait for it, then read the store again
   * rather than trusting the entry `wait` hands back, because only what is in the
   * store now has survived every invalidation so far.
   */
  async #awaitRemote(call: ReadCall, flight: NonNullable<ToolCacheStore['flight']>): Promise<StoredEntry | undefined> {
    try {
      const waited = await flight.wait(call.key, this.#flightTimeoutMs);
      if (waited === undefined) return undefined;
      const { entry } = await this.#lookup(call);
      return entry;
    } catch {
      this.#stats.add(call.name, 'storeErrors');
      return undefined;
    }
  }
}
