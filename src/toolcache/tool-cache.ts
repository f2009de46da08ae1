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
 *   returned to its caller but never cached (fill.ts);
 * - singleflight joins only a flight that started at the epoch the joiner sees,
 *   so a call that starts after a write never receives a run that began before it;
 * - a write invalidates after its tool ended (succeeded or failed: a failure may
 *   have written half-way), and its `call()` resolves
 *   only after the invalidation did. A write in flight needs no epoch bump at its
 *   start: a read that overlaps it may legitimately see either side, and any
 *   entry inserted before its invalidation is evicted by it.
 * Turn clocks belong to one session: turn-TTL entries are keyed by session, so
 * sessions sharing a store never judge (or delete) each other's entries by the
 * wrong clock; second-TTL entries are shared (freshness.ts).
 * If the store fails, calls pass through to the tool (counted as `storeErrors`);
 * a write whose invalidation failed puts the cache in a degraded state in which
 * reads bypass it until the invalidation is retried successfully. Other caches
 * sharing the store are kept from the stale entries by the write's mark, made
 * before the tool ran on stores that have marks (store.ts `beginWrite`).
 */

import { randomId } from '../internal/hash.js';
import type { PortableToolResultBlockParam } from '../providers/anthropic-types.js';
import { InvalidOptionError } from '../errors.js';
import { optionKeys, refuseUnknownKeys } from '../internal/option-keys.js';
import { copyContent, isRunResult, withMarker } from './content.js';
import { type FillContext, type FillResult, fill, type ReadCall, type RunOutput } from './fill.js';
import { agedOut, belongsTo, type Clocks, expiredByOwnTtl, isExpired } from './freshness.js';
import { flatText, hashArgs, memoryKeyPart, toolOfKey } from './key.js';
import { MemoryToolCacheStore } from './memory-store.js';
import {
  callDependencies,
  EVERYTHING_TAG,
  fileTag,
  type ParsedTag,
  readEntryTags,
  type ResolvedPolicy,
  resolveFileDependencies,
  resolvePolicy,
  writeInvalidationTags,
  type ToolPolicy,
} from './policy.js';
import { isAbsolutePath } from './path-tags.js';
import { SingleFlight, TIMED_OUT } from './singleflight.js';
import { formatStats, StatsRecorder, type ToolCacheStats } from './stats.js';
import type { StoredEntry, ToolCacheStore } from './store.js';
import { runToolUses, unfitContent } from './tool-uses.js';
import type { CacheStatus, ToolCacheOptions, ToolCallOptions, ToolCallResult, ToolRunner } from './types.js';

export type { CacheStatus, ToolCacheOptions, ToolCallOptions, ToolCallResult, ToolRunner, ToolRunResult, ToolUseLike } from './types.js';

const defaultNow = (): number => performance.timeOrigin + performance.now();

const MEMORY_GET = MemoryToolCacheStore.prototype.get;
const MEMORY_GET_SYNC = MemoryToolCacheStore.prototype.getSync;

/** Hot keys of the memory hit path: how many, and the longest plain argument text remembered. */
const MAX_HOT_KEYS = 1024;
const MAX_HOT_TEXT = 256;

/** The methods every store has; a store without them fails every call, which would pass through uncached, silently. */
const STORE_METHODS = ['epoch', 'get', 'insertIfEpoch', 'invalidate', 'delete'] as const;

/** A store that is not one (an un-awaited `createRedisToolCacheStore(…)`, `{}`), a clock or a marker of the wrong type. */
function checkOptionTypes(options: ToolCacheOptions): void {
  const store = options.store as unknown as Record<string, unknown> | undefined;
  if (store !== undefined && (typeof store !== 'object' || store === null || STORE_METHODS.some((m) => typeof store[m] !== 'function'))) {
    const hint = typeof store?.then === 'function' ? ' (a Promise: await createRedisToolCacheStore(…) first)' : '';
    throw new InvalidOptionError('store', `expected a tool cache store with epoch(), get(), insertIfEpoch(), invalidate() and delete()${hint}`, {
      value: store,
    });
  }
  if (options.now !== undefined && typeof options.now !== 'function')
    throw new InvalidOptionError('now', 'must be a function returning milliseconds', { value: options.now });
  if (options.marker !== undefined && typeof options.marker !== 'string') throw new InvalidOptionError('marker', 'must be a string', { value: options.marker });
  if (options.cwd !== undefined && (typeof options.cwd !== 'string' || !isAbsolutePath(options.cwd)))
    throw new InvalidOptionError('cwd', `must be an absolute directory (the agent's working directory), got ${JSON.stringify(options.cwd)}`, {
      value: options.cwd,
    });
  if (options.undeclared !== undefined && options.undeclared !== 'write' && options.undeclared !== 'passthrough')
    throw new InvalidOptionError('undeclared', `must be 'write' (the default) or 'passthrough', got ${JSON.stringify(options.undeclared)}`, {
      value: options.undeclared,
    });
}

/**
 * Memoizes declared read tools, invalidates on declared writes, runs tools
 * registered with an empty policy untouched, and treats a tool never registered
 * as a write to everything (see {@link ToolCacheOptions.undeclared}).
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
  /** The session whose turn clock this cache counts (see {@link ToolCacheOptions.session}). */
  readonly session: string;
  readonly #policies = new Map<string, ResolvedPolicy>();
  readonly #flights = new SingleFlight<FillResult, Clocks>();
  readonly #stats = new StatsRecorder();
  readonly #now: () => number;
  readonly #marker: string;
  readonly #flightTimeoutMs: number;
  /** A tool never registered is a write to everything (see {@link ToolCacheOptions.undeclared}). */
  readonly #undeclaredWrites: boolean;
  /** The working directory relative paths are resolved against, as `fileTag` writes it (see {@link ToolCacheOptions.cwd}). */
  readonly #cwd: string | undefined;
  readonly #fill: FillContext;
  /**
   * Tags of successful writes whose invalidation the store refused, each with the number of the failure that
   * (last) put it here; reads bypass while non-empty. A retry clears a tag only if no failure re-added it
   * meanwhile: a retry the store applied before a later write ran says nothing about that write.
   */
  readonly #pending = new Map<string, number>();
  #failures = 0;
  /** The store when it is the in-process memory store: keys may hold short argument texts raw, and hits are looked up synchronously. */
  readonly #memory: MemoryToolCacheStore | undefined;
  /** `encodeURIComponent(tool) + ':'` per tool name seen. */
  readonly #toolPrefix = new Map<string, string>();
  /** The last scope keyed and its encoding (an agent's calls almost always share one scope). */
  #scope = '';
  #scopeEncoded = '';
  /** `~` + the encoded session: what turn-TTL keys end with. */
  readonly #sessionSuffix: string;
  /**
   * The memory store's hit path: the key of a flat argument object by its plain JSON text (see
   * {@link flatText}), per tool and scope. A hit is a repeat, so its key was computed before: the
   * lookup then costs one native stringify and one Map lookup, and the key string (its hash
   * already computed) is not built again. Bounded; emptied when full.
   */
  readonly #hotKeys = new Map<string, { readonly tool: string; readonly scope: string; readonly key: string }>();
  #turn: number;

  constructor(options: ToolCacheOptions = {}) {
    refuseUnknownKeys(options, TOOL_CACHE_OPTION_KEYS);
    checkOptionTypes(options);
    if (options.store !== undefined && options.maxEntries !== undefined) {
      throw new InvalidOptionError('maxEntries', 'applies to the default memory store only; pass it to your store instead');
    }
    const store = options.store ?? new MemoryToolCacheStore(options.maxEntries === undefined ? {} : { maxEntries: options.maxEntries });
    this.store = store;
    countEvictions(store, this.#stats);
    if (options.session !== undefined && (typeof options.session !== 'string' || options.session === '')) {
      throw new InvalidOptionError('session', `must be a non-empty string, got ${JSON.stringify(options.session)}`);
    }
    this.session = options.session ?? randomId();
    this.#sessionSuffix = `~${encodeURIComponent(this.session)}`;
    this.#memory = store instanceof MemoryToolCacheStore ? store : undefined;
    this.#now = options.now ?? defaultNow;
    this.#marker = options.marker ?? '[cached]';
    this.#undeclaredWrites = options.undeclared !== 'passthrough';
    this.#cwd = options.cwd === undefined ? undefined : fileTag(options.cwd).slice('file:'.length);
    this.#flightTimeoutMs = options.flightTimeoutMs ?? 30_000;
    if (!Number.isFinite(this.#flightTimeoutMs) || this.#flightTimeoutMs <= 0) {
      throw new InvalidOptionError('flightTimeoutMs', `must be a positive number, got ${String(options.flightTimeoutMs)}`);
    }
    this.#turn = 0;
    if (options.turn !== undefined) this.setTurn(options.turn);
    this.#fill = {
      store,
      stats: this.#stats,
      flightTimeoutMs: this.#flightTimeoutMs,
      session: this.session,
      now: this.#now,
      turn: () => this.#turn,
      execute: (call) => this.#execute(call.run, call.args, call.callId),
      lookup: async (call) => (await this.#lookup(call)).entry,
    };
  }

  /**
   * Declares a tool's policy. A tool never registered runs every time and, by default, counts as a write to
   * everything (it may have changed anything a cached read returned); register a harmless one with `{}`.
   */
  register<TArgs>(name: string, policy: ToolPolicy<TArgs>): this {
    if (this.#policies.has(name)) throw new InvalidOptionError(`tools.${name}`, 'is already registered; register each tool once');
    this.#policies.set(name, resolvePolicy(name, policy as ToolPolicy<never>));
    return this;
  }

  /**
   * Declares several tools at once, e.g. a preset such as {@link claudeCodeTools}: `register` for each entry, in
   * order (a tool already registered throws, naming it).
   *
   * @example
   * ```ts
   * const cache = new ToolCache().registerAll(claudeCodeTools()).registerAll({ Deploy: { writes: ['file'] } });
   * ```
   */
  registerAll(policies: Readonly<Record<string, ToolPolicy<never>>>): this {
    if (typeof policies !== 'object' || policies === null) throw new InvalidOptionError('tools', 'must be an object of policies by tool name');
    for (const [name, policy] of Object.entries(policies)) this.register(name, policy);
    return this;
  }

  /** The resolved policy of a tool, or undefined when it was not registered. */
  policy(name: string): ResolvedPolicy | undefined {
    return this.#policies.get(name);
  }

  /**
   * The store key a call of a registered read tool uses: {@link toolCacheKey},
   * plus this session for turn-TTL tools (their turn numbers mean nothing to
   * another session). With the in-process memory store, arguments whose
   * canonical text is short are held raw instead of hashed (`…:=<text>`, see
   * key.ts); every other store gets the hashed form.
   */
  keyOf(name: string, args: unknown, scope: string): string {
    let prefix = this.#toolPrefix.get(name);
    if (prefix === undefined) {
      prefix = `${encodeURIComponent(name)}:`;
      if (this.#toolPrefix.size < 10_000) this.#toolPrefix.set(name, prefix);
    }
    if (scope !== this.#scope || this.#scopeEncoded === '') {
      this.#scopeEncoded = `${encodeURIComponent(scope)}:`;
      this.#scope = scope;
    }
    const base = prefix + this.#scopeEncoded + (this.#memory === undefined ? hashArgs(args, name) : memoryKeyPart(args, name));
    return this.#policies.get(name)?.ttlTurns === undefined ? base : base + this.#sessionSuffix;
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
  call<TArgs>(name: string, args: TArgs, run: ToolRunner<TArgs>, options: ToolCallOptions): Promise<ToolCallResult> {
    let fast: ToolCallResult | string | undefined;
    try {
      fast = this.#memoryHit(name, args, options);
    } catch {
      fast = undefined; // e.g. an injected clock that throws: the general path rejects with it
    }
    if (typeof fast === 'object') return Promise.resolve(fast);
    return this.#call(name, args, run, options, fast).then(checkedContent);
  }

  /**
   * The hit path of the memory store, synchronous: a read call whose entry is in the store and may
   * be served returns the hit here (the same checks and counters as {@link #read}); anything else
   * returns the key it computed (or undefined) for the general path, which then does the rest,
   * including every error. Looking up before the first await is never staler than after it.
   */
  #memoryHit(name: string, args: unknown, options: ToolCallOptions): ToolCallResult | string | undefined {
    const store = this.#memory;
    if (store === undefined || store.get !== MEMORY_GET || store.getSync !== MEMORY_GET_SYNC) return undefined;
    if (typeof options !== 'object' || options === null) return undefined;
    const { scope, callId } = options;
    if (typeof scope !== 'string' || typeof callId !== 'string') return undefined;
    const policy = this.#policies.get(name);
    if (policy === undefined || policy.kind !== 'read' || policy.ttlTurns === 0 || policy.ttlMs === 0) return undefined;
    let key: string;
    try {
      const text = flatText(args);
      const hot = text === undefined ? undefined : this.#hotKeys.get(text);
      if (hot !== undefined && hot.tool === name && hot.scope === scope) key = hot.key;
      else {
        key = this.keyOf(name, args, scope);
        if (text !== undefined && text.length <= MAX_HOT_TEXT) {
          if (this.#hotKeys.size >= MAX_HOT_KEYS) this.#hotKeys.clear();
          this.#hotKeys.set(text, { tool: name, scope, key });
        }
      }
    } catch {
      return undefined; // the general path throws it again, as a rejection
    }
    if (this.#pending.size > 0) return key; // degraded: the general path bypasses
    const entry = store.getSync(key);
    if (entry === undefined) return key;
    // An expired or foreign entry: the general path removes it and counts why.
    // The clock is read only when a TTL in ms applies (a turn-TTL entry never looks at it).
    const nowMs = policy.ttlMs === undefined && entry.expiresAtMs === undefined ? 0 : this.#now();
    if (!belongsTo(entry, { key, tool: name, scope }) || isExpired(entry, policy, { turn: this.#turn, nowMs })) return key;
    return this.#hit(name, callId, entry);
  }

  #hit(name: string, callId: string, e: StoredEntry): ToolCallResult {
    this.#stats.hit(name, e.durationMs);
    return {
      tool: name,
      callId,
      content: withMarker(e.content, this.#marker),
      isError: false,
      durationMs: e.durationMs,
      cache: { type: 'hit', insertedTurn: e.insertedTurn, insertedAtMs: e.insertedAtMs },
    };
  }

  async #call(name: string, args: unknown, run: ToolRunner<never>, options: ToolCallOptions, knownKey: string | undefined): Promise<ToolCallResult> {
    if (typeof options?.scope !== 'string')
      throw new InvalidOptionError('scope', `${name}: every call needs a string scope (tenant/user id); use '' for a single-tenant agent`);
    if (typeof options.callId !== 'string') throw new InvalidOptionError('callId', `${name}: every call needs its call id`);
    if (typeof run !== 'function') throw new InvalidOptionError('run', `${name}: expected the tool's function (args, { callId }) => content`, { value: run });
    const policy = this.#policies.get(name);
    const runner = run as ToolRunner<never>;
    if (policy === undefined && this.#undeclaredWrites) {
      // The cache cannot know what it wrote (a shell's `sed -i`, `mv`, `git checkout`): everything, to be safe.
      const r = await this.#write(name, [EVERYTHING_TAG], args, runner, options.callId);
      return { ...r, cache: { type: 'bypass', reason: 'undeclared' } };
    }
    if (policy === undefined || policy.kind === 'passthrough') {
      this.#stats.add(name, 'bypassed');
      const out = await this.#execute(runner, args, options.callId);
      return { tool: name, callId: options.callId, ...out, cache: { type: 'bypass', reason: policy === undefined ? 'undeclared' : 'not_cacheable' } };
    }
    // Computed before the run so a bad extractor fails before any side effect.
    if (policy.kind === 'write') return this.#write(name, writeInvalidationTags(this.#dependencies(policy, args)), args, runner, options.callId);

    const key = knownKey ?? this.keyOf(name, args, options.scope);
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
  runToolUses<TBlock extends { readonly type: string }>(
    blocks: readonly TBlock[],
    handlers: Readonly<Record<string, ToolRunner<never>>>,
    options: { readonly scope: string; readonly onResult?: (result: ToolCallResult) => void },
  ): Promise<PortableToolResultBlockParam[]> {
    return runToolUses(this, blocks, handlers, options);
  }

  async #execute(run: ToolRunner<never>, args: unknown, callId: string): Promise<RunOutput> {
    const start = this.#now();
    const out = await (run as ToolRunner<unknown>)(args, { callId });
    const durationMs = this.#now() - start;
    if (isRunResult(out)) return { content: out.content, isError: out.isError === true, durationMs: out.durationMs ?? durationMs };
    return { content: out, isError: false, durationMs };
  }

  /** Retries a failed invalidation; true when the cache is coherent again. */
  async #healthy(): Promise<boolean> {
    if (this.#pending.size === 0) return true;
    const snapshot = [...this.#pending];
    const tags = snapshot.map(([t]) => t);
    try {
      const { evicted } = await this.store.invalidate(tags);
      for (const [t, failure] of snapshot) if (this.#pending.get(t) === failure) this.#pending.delete(t);
      for (const k of evicted) this.#stats.evicted(toolOfKey(k), 'write');
      return this.#pending.size === 0;
    } catch {
      this.#stats.add('(store)', 'storeErrors');
      return false;
    }
  }

  /** A write tool's call (`tags`: what its success evicts). */
  async #write(name: string, tags: readonly string[], args: unknown, run: ToolRunner<never>, callId: string): Promise<ToolCallResult> {
    this.#stats.add(name, 'bypassed');
    // A shared store marks the write before it runs (store.ts beginWrite): should this process lose the store before
    // its invalidation gets through, no other process is left an entry older than the write to serve.
    const token = this.store.beginWrite === undefined ? undefined : randomId();
    let early: readonly string[] = [];
    if (token !== undefined) {
      try {
        early = (await this.store.beginWrite?.(tags, token))?.evicted ?? [];
        for (const k of early) this.#stats.evicted(toolOfKey(k), 'write');
      } catch {
        this.#stats.add(name, 'storeErrors'); // unmarked: the invalidation after the run is all there is, as without marks
      }
    }
    let out: RunOutput | undefined;
    let thrown: { readonly error: unknown } | undefined;
    try {
      out = await this.#execute(run, args, callId);
    } catch (error) {
      thrown = { error };
    }
    const ok = out !== undefined && !out.isError;
    this.#stats.add(name, ok ? 'writes' : 'failedWrites');
    // A failed write may have written half-way (a shell that edited, then exited 1; a formatter that threw after the
    // save; a timeout after the bytes reached the disk): the cache cannot tell, so it invalidates as for a success.
    const evicted = await this.#invalidate(name, tags, token, early);
    if (thrown !== undefined) throw thrown.error;
    return { tool: name, callId, ...(out as RunOutput), cache: { type: 'write', ok, evicted } };
  }

  /** A write's invalidation (lifting its marks); if the store refuses it, its tags stay pending and reads bypass. */
  async #invalidate(name: string, tags: readonly string[], token: string | undefined, early: readonly string[]): Promise<readonly string[]> {
    await this.#healthy();
    try {
      const late = (await this.store.invalidate(tags, token === undefined ? [] : [token])).evicted;
      for (const k of late) this.#stats.evicted(toolOfKey(k), 'write');
      return early.length === 0 ? late : [...early, ...late];
    } catch {
      this.#stats.add(name, 'storeErrors');
      // Remembered before this call resolves, so every read that starts after it bypasses the cache.
      const failure = ++this.#failures;
      for (const t of tags) this.#pending.set(t, failure);
      return early;
    }
  }

  /** What a call depends on, its relative paths resolved when the working directory is known. */
  #dependencies(policy: ResolvedPolicy, args: unknown): ParsedTag[] {
    const deps = callDependencies(policy, args);
    return this.#cwd === undefined ? deps : resolveFileDependencies(deps, this.#cwd);
  }

  /** Looks `key` up; removes expired and malformed entries on sight. */
  async #lookup(call: ReadCall): Promise<{ entry?: StoredEntry; expired: boolean }> {
    const entry = await this.store.get(call.key);
    if (entry === undefined) return { expired: false };
    let reason: 'expired' | 'corrupt' | undefined;
    if (!belongsTo(entry, { key: call.key, tool: call.name, scope: call.scope })) reason = 'corrupt';
    else if (isExpired(entry, call.policy, { turn: this.#turn, nowMs: this.#now() })) reason = 'expired';
    if (reason === undefined) return { entry, expired: false };
    try {
      if (await this.store.delete(call.key)) this.#stats.evicted(call.name, reason);
    } catch {
      this.#stats.add(call.name, 'storeErrors');
    }
    return { expired: reason === 'expired' };
  }

  /** Drops a few expired entries from the old end of a memory store after an insert (it never grows with dead entries). */
  #sweep(): void {
    const store = this.store;
    if (!(store instanceof MemoryToolCacheStore)) return;
    const clocks = { turn: this.#turn, nowMs: this.#now() };
    for (const key of store.sweep((e) => expiredByOwnTtl(e, clocks, this.session))) this.#stats.evicted(toolOfKey(key), 'expired');
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

  /** A cacheable call; `afterTimeout`: the run it joined before did not settle within `flightTimeoutMs`. */
  async #read(call: ReadCall, afterTimeout = false): Promise<ToolCallResult> {
    const { name, policy, callId } = call;
    if (policy.ttlTurns === 0 || policy.ttlMs === 0) {
      this.#stats.add(name, 'misses');
      const out = await this.#execute(call.run, call.args, callId);
      return { tool: name, callId, ...out, cache: { type: 'miss', expired: false, inserted: false, notInserted: 'ttl_zero' } };
    }
    // Checked without an await when nothing is pending (the common case).
    if (this.#pending.size > 0 && !(await this.#healthy())) return this.#bypass(call, 'degraded');

    let found: { entry?: StoredEntry; expired: boolean };
    try {
      found = await this.#lookup(call);
    } catch {
      this.#stats.add(name, 'storeErrors');
      return this.#bypass(call, 'store_error');
    }
    if (found.entry !== undefined) return this.#hit(name, callId, found.entry);
    // Only a miss needs the tags (to insert); an extractor error is the caller's bug, not a store error.
    const tags = readEntryTags(this.#dependencies(policy, call.args));
    let epoch: number;
    try {
      epoch = await this.store.epoch();
    } catch {
      this.#stats.add(name, 'storeErrors');
      return this.#bypass(call, 'store_error');
    }

    // A joiner's bound covers the run, plus, with a shared store, the runner's own wait for another process.
    const joinTimeoutMs = this.store.flight === undefined ? this.#flightTimeoutMs : 2 * this.#flightTimeoutMs;
    // A run's content is at least as fresh as its start: a call joins only a run its TTL still accepts, as for a hit.
    const now: Clocks = { turn: this.#turn, nowMs: this.#now() };
    const ticket = this.#flights.run(
      call.key,
      epoch,
      () => fill(this.#fill, call, epoch, tags),
      joinTimeoutMs,
      now,
      (started) => (started === undefined ? false : !agedOut(started, policy, now)),
    );
    const r = await ticket.promise;
    if (r === TIMED_OUT) {
      // The run this caller joined did not settle in time (and was forgotten): start over, so the
      // caller hits what another caller cached meanwhile, joins a fresh run, or runs the tool itself.
      return this.#read(call, true);
    }
    if (ticket.shared || r.origin === 'remote') {
      // Someone else's run: like a hit, the caller is told it did not run the tool (errors are told as they are).
      this.#stats.add(name, 'shared');
      const content = r.isError ? copyContent(r.content) : withMarker(copyContent(r.content), this.#marker);
      return { tool: name, callId, content, isError: r.isError, durationMs: r.durationMs, cache: { type: 'shared' } };
    }
    this.#stats.add(name, 'misses');
    if (r.inserted) this.#sweep();
    const status: CacheStatus = {
      type: 'miss',
      expired: found.expired,
      inserted: r.inserted,
      ...(r.notInserted === undefined ? {} : { notInserted: r.notInserted }),
      ...(afterTimeout ? { flightTimedOut: true as const } : {}),
    };
    return { tool: name, callId, content: r.content, isError: r.isError, durationMs: r.durationMs, cache: status };
  }
}

/** The keys of {@link ToolCacheOptions}: any other is a typo, refused. */
const TOOL_CACHE_OPTION_KEYS = optionKeys<ToolCacheOptions>({
  store: true,
  maxEntries: true,
  now: true,
  turn: true,
  session: true,
  marker: true,
  flightTimeoutMs: true,
  undeclared: true,
  cwd: true,
});

/**
 * A call's result whose content a tool_result can hold and the cache can replay: a string, an array of content blocks,
 * or none. Anything else (a number, `null`, `{}`, `{ content: 7 }`) is the tool's bug: refused here, after the call
 * (a write's invalidation has happened; a read stored nothing, fill.ts), as `runToolUses` refuses it for a handler.
 */
function checkedContent(r: ToolCallResult): ToolCallResult {
  const c: unknown = r.content;
  const got = unfitContent(c);
  if (got === undefined) return r;
  throw new InvalidOptionError(
    'run',
    `${r.tool}: returned ${got} for call ${r.callId}: a tool returns a string, an array of content blocks, or { content, isError }`,
    {
      value: c,
    },
  );
}

/**
 * Subscribes a cache's stats to the store's own evictions, holding them weakly and unsubscribing once they are gone:
 * a store shared by many caches (one per session) must not keep each alive. Outside the constructor, whose closures
 * share a context that holds the cache itself.
 */
function countEvictions(store: ToolCacheStore, stats: StatsRecorder): void {
  const held = new WeakRef(stats);
  const off = store.onEvict?.((key, reason) => {
    const s = held.deref();
    if (s) s.evicted(toolOfKey(key), reason);
    else off?.();
  });
}
