/**
 * The shared tool-result cache: a {@link ToolCacheStore} on Redis, so a fleet
 * of agent processes shares hits and every write's invalidation reaches every
 * replica before the write returns.
 *
 * - Entries live under `{namespace}:e:<key>` (the key already carries tool,
 *   scope and argument hash) with native expiry; tag sets `{namespace}:t:<tag>`
 *   map each tag/path to the keys that depend on it.
 * - `insertIfEpoch` and `invalidate` are Lua scripts, atomic on the server, so
 *   the epoch guard holds across processes (see redis-scripts.ts).
 * - `flight` coordinates singleflight across processes (see redis-flight.ts).
 * - An optional in-process front tier serves hot hits without a round trip
 *   and is kept honest by acks and leases (see redis-front.ts).
 * - Faults: every failing command rejects quickly with a {@link RedisStoreError}
 *   (the memoizer then runs the tool: pass-through), the first failure of an
 *   outage raises a warning, counters say what happened, and the client
 *   reconnects on its own. An invalidation that could not reach Redis is kept
 *   and re-sent before this store reads anything again.
 */

import { randomBytes } from 'node:crypto';
import { InvalidOptionError } from '../../errors.js';
import { optionKeys, refuseUnknownKeys } from '../../internal/option-keys.js';
import { EVERYTHING_TAG, type FlightCoordinator, type StoredEntry, type ToolCacheStore } from '../store.js';
import {
  RedisStoreError,
  type RedisStoreWarning,
  type RedisStoreWarningCode,
  type RedisToolCacheStoreOptions,
  type RedisToolCacheStoreStats,
} from './redis-api.js';
import type { EvictionReason } from '../stats.js';
import type { RedisLike, RedisLinkEvent, RedisScript } from './redis-client.js';
import { decodeEntry, decodeStored, encodeEntry } from './redis-codec.js';
import { RedisFlightCoordinator } from './redis-flight.js';
import { FrontTier } from './redis-front.js';
import { BEGIN_WRITE_SCRIPT, DROP_DEAD_SCRIPT, END_WRITE_SCRIPT, EPOCH_SCRIPT, INSERT_SCRIPT, INVALIDATE_SCRIPT, VERIFY_SCRIPT } from './redis-scripts.js';

// TYPES

type InvMessage = { readonly t: 'inv'; readonly id: string; readonly from: string; readonly tags: readonly string[] };
type AckMessage = { readonly t: 'ack'; readonly id: string; readonly by: string };
type HeartbeatMessage = { readonly t: 'hb'; readonly n: number };
type StoreMessage = InvMessage | AckMessage | HeartbeatMessage;

interface AckWaiter {
  need: number;
  readonly by: Set<string>;
  done: () => void;
}

const DEFAULT_NAMESPACE = 'cachepoint';

function positiveNumber(name: string, v: number | undefined, fallback: number, allowInfinity = false): number {
  const x = v ?? fallback;
  if (!(x > 0) || (!allowInfinity && !Number.isFinite(x))) {
    throw new InvalidOptionError(name, `must be a positive${allowInfinity ? '' : ' finite'} number, got ${String(v)}`);
  }
  return x;
}

// CLASS

/**
 * A {@link ToolCacheStore} shared through Redis.
 *
 * @example
 * ```ts
 * import { createRedisToolCacheStore } from 'cachepoint/redis';
 * const store = await createRedisToolCacheStore({ url: process.env.REDIS_URL, namespace: 'agents-prod', frontTier: true });
 * const cache = new ToolCache({ store });
 * ```
 */
export class RedisToolCacheStore implements ToolCacheStore {
  readonly namespace: string;
  /** This store's id on the bus (acks are addressed to it). */
  readonly id = randomBytes(6).toString('hex');
  readonly flight: FlightCoordinator;
  readonly #client: RedisLike;
  readonly #front: FrontTier | undefined;
  readonly #ackTimeoutMs: number;
  readonly #defaultMaxAgeMs: number;
  readonly #writeMarkMs: number;
  readonly #onWarning: (w: RedisStoreWarning) => void;
  readonly #closeClient: boolean;
  readonly #acks = new Map<string, AckWaiter>();
  readonly #pending = new Set<string>();
  readonly #evictListeners = new Set<(key: string, reason: EvictionReason) => void>();
  /** Tokens of writes whose invalidation (which lifts their marks) is pending with {@link #pending}. */
  readonly #pendingWrites = new Set<string>();
  #flushing: Promise<void> | undefined;
  /** Whether the namespace's data is known to come from the server answering now (see {@link #verify}). */
  #verified = false;
  #verifying: Promise<void> | undefined;
  #evictionWarned = false;
  /** The background re-send of pending invalidations (see {@link #retryPending}). */
  #retry: NodeJS.Timeout | undefined;
  #degraded = false;
  #subscribed = false;
  #closed = false;
  readonly #timer: NodeJS.Timeout | undefined;
  readonly #offLink: () => void;
  readonly #stats = {
    commandErrors: 0,
    outages: 0,
    recoveries: 0,
    decodeFailures: 0,
    ackTimeouts: 0,
    frontHits: 0,
    frontMisses: 0,
    waits: 0,
    waitHits: 0,
    waitGaveUp: 0,
    waitTimeouts: 0,
  };
  readonly #k: {
    readonly epoch: string;
    /** The epoch of the last write to everything: entries inserted before it are unreachable (redis-scripts.ts). */
    readonly all: string;
    readonly run: string;
    readonly entryPrefix: string;
    readonly tagPrefix: string;
    readonly lockPrefix: string;
    readonly markPrefix: string;
    readonly flightPrefix: string;
    readonly inv: string;
    readonly own: string;
  };

  constructor(options: RedisToolCacheStoreOptions) {
    refuseUnknownKeys(options, optionKeys<RedisToolCacheStoreOptions>({ ...STORE_OPTION_KEYS, client: true, closeClient: true }));
    const ns = options.namespace ?? DEFAULT_NAMESPACE;
    if (ns.length === 0 || /[{}]/.test(ns)) {
      throw new InvalidOptionError('namespace', `must be non-empty without "{" or "}" (it becomes a Redis hash tag), got "${ns}"`);
    }
    this.namespace = ns;
    this.#client = options.client;
    this.#ackTimeoutMs = positiveNumber('ackTimeoutMs', options.ackTimeoutMs, 1000);
    this.#defaultMaxAgeMs = positiveNumber('defaultMaxAgeMs', options.defaultMaxAgeMs, 86_400_000, true);
    this.#writeMarkMs = positiveNumber('writeMarkMs', options.writeMarkMs, 300_000);
    const pollMs = positiveNumber('flightPollMs', options.flightPollMs, 100);
    if (options.onWarning !== undefined && typeof options.onWarning !== 'function') {
      // #warn swallows what the handler throws: a non-function would lose every warning without a trace.
      throw new InvalidOptionError('onWarning', 'must be a function receiving { code, message, cause? }', { value: options.onWarning });
    }
    this.#onWarning = options.onWarning ?? defaultWarning;
    this.#closeClient = options.closeClient ?? true;
    const p = `{${ns}}:`;
    this.#k = {
      epoch: `${p}epoch`,
      all: `${p}all`,
      run: `${p}run`,
      entryPrefix: `${p}e:`,
      tagPrefix: `${p}t:`,
      lockPrefix: `${p}l:`,
      markPrefix: `${p}m:`,
      flightPrefix: `${p}f:`,
      inv: `${p}inv`,
      own: `${p}s:${this.id}`,
    };
    if (options.frontTier !== undefined && options.frontTier !== false) {
      const fo = options.frontTier === true ? {} : options.frontTier;
      const maxEntries = fo.maxEntries ?? 1000;
      if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
        throw new InvalidOptionError('frontTier.maxEntries', `must be a positive integer, got ${String(fo.maxEntries)}`);
      }
      const leaseMs = positiveNumber('frontTier.leaseMs', fo.leaseMs, 500);
      if (leaseMs >= this.#ackTimeoutMs) {
        throw new InvalidOptionError(
          'frontTier.leaseMs',
          `must be below ackTimeoutMs (${this.#ackTimeoutMs}), got ${leaseMs}: a writer must outwait a silent replica's lease`,
        );
      }
      this.#front = new FrontTier({ maxEntries, leaseMs });
      this.#timer = setInterval(() => this.#heartbeat(), Math.max(10, Math.floor(leaseMs / 5)));
      this.#timer.unref();
    }
    this.#offLink = this.#client.onLinkEvent((e) => this.#onLink(e));
    void this.#subscribe();
    const k = this.#k;
    this.flight = new RedisFlightCoordinator({
      client: this.#client,
      pollMs,
      lockKey: (key) => k.lockPrefix + key,
      entryKey: (key) => k.entryPrefix + key,
      allKey: k.all,
      flightChannel: (key) => k.flightPrefix + key,
      script: (op, s, keys, args) => this.#run(op, () => this.#script(s, keys, args)),
      decode: (raw, key) => this.#decode(raw, key),
      count: (what) => {
        this.#stats[what] += 1;
      },
    });
  }

  /** A snapshot of the counters. */
  get stats(): RedisToolCacheStoreStats {
    const s = this.#stats;
    return {
      connected: this.#client.isReady(),
      commandErrors: s.commandErrors,
      outages: s.outages,
      recoveries: s.recoveries,
      decodeFailures: s.decodeFailures,
      pendingInvalidationTags: this.#pending.size,
      ackTimeouts: s.ackTimeouts,
      frontHits: s.frontHits,
      frontMisses: s.frontMisses,
      frontEvictions: this.#front?.evictions ?? 0,
      frontResets: this.#front?.resets ?? 0,
      frontSize: this.#front?.size ?? 0,
      flightWaits: s.waits,
      flightWaitHits: s.waitHits,
      flightWaitGaveUp: s.waitGaveUp,
      flightWaitTimeouts: s.waitTimeouts,
    };
  }

  /** Whether the front tier may serve hits right now (it holds a lease). */
  get frontTierLeased(): boolean {
    return this.#front?.leased() ?? false;
  }

  /**
   * Subscribes to the entries this store deletes on its own: one a write to everything made unreachable, deleted
   * when a read of this process met it (`write`; counted by the replica whose delete removed it, so once in all).
   * ToolCache subscribes itself. Returns the unsubscribe function.
   */
  onEvict(listener: (key: string, reason: EvictionReason) => void): () => void {
    this.#evictListeners.add(listener);
    return () => this.#evictListeners.delete(listener);
  }

  async epoch(): Promise<number> {
    if (!this.#verified) await this.#verify();
    await this.#flushPending();
    return this.#run('epoch', async () => {
      const raw = await this.#client.get(this.#k.epoch);
      const v = raw === null ? await this.#script(EPOCH_SCRIPT, [this.#k.epoch], []) : raw;
      return toEpoch(v);
    });
  }

  async get(key: string): Promise<StoredEntry | undefined> {
    const front = this.#front;
    if (front !== undefined) {
      const hit = front.get(key);
      if (hit !== undefined) {
        this.#stats.frontHits += 1;
        return hit;
      }
      this.#stats.frontMisses += 1;
    }
    const ticket = front?.ticket();
    if (!this.#verified) await this.#verify();
    if (this.#pending.size > 0) await this.#flushPending();
    const k = this.#k;
    const entryKey = k.entryPrefix + key;
    // The entry and the last write to everything, read together (one round trip): an entry inserted before that
    // write is gone for every read that starts after it returned. (Both reads happen after this call started, so
    // the two GETs of a client without MGET may be answered in either order.)
    const client = this.#client;
    const [all, raw] = await this.#run('get', () =>
      client.mget === undefined ? Promise.all([client.get(k.all), client.get(entryKey)]) : client.mget([k.all, entryKey]),
    );
    if (raw === null || raw === undefined) return undefined;
    const stored = decodeStored(raw, key);
    if (stored === undefined) {
      await this.#decode(raw, key); // counts, warns and deletes
      return undefined;
    }
    if (stored.epoch < (all === null || all === undefined ? 0 : Number(all))) {
      // Unreachable since a write to everything: deleted unless an entry inserted since took its place. That write
      // deleted nothing, so this is where its eviction is counted: by whichever read's DEL removed it (once).
      this.#script(DROP_DEAD_SCRIPT, [entryKey, k.all], [])
        .then((deleted) => {
          if (deleted === 1) for (const l of this.#evictListeners) l(key, 'write');
        })
        .catch(() => undefined);
      return undefined;
    }
    if (front !== undefined && ticket !== undefined) front.offer(stored.entry, ticket);
    return stored.entry;
  }

  async insertIfEpoch(entry: StoredEntry, epoch: number): Promise<boolean> {
    if (!this.#verified) await this.#verify();
    await this.#flushPending();
    let px: number;
    // The lifetime, not the absolute expiry: that is on the cache's clock, which may be injected.
    if (entry.ttlMs !== undefined) px = Math.max(1, Math.ceil(entry.ttlMs));
    else if (entry.expiresAtMs !== undefined) px = Math.max(1, Math.ceil(entry.expiresAtMs - entry.insertedAtMs));
    else px = Number.isFinite(this.#defaultMaxAgeMs) ? Math.ceil(this.#defaultMaxAgeMs) : 0;
    const value = encodeEntry(entry, epoch);
    const ticket = this.#front?.ticket();
    const k = this.#k;
    // `~all` names every entry without a set of them all (INSERT_SCRIPT checks its mark for every entry).
    const tags = entry.tags.includes(EVERYTHING_TAG) ? entry.tags.filter((t) => t !== EVERYTHING_TAG) : entry.tags;
    const stored =
      (await this.#run('insertIfEpoch', () =>
        this.#script(
          INSERT_SCRIPT,
          [k.epoch, k.entryPrefix + entry.key],
          [String(epoch), value, String(px), k.tagPrefix, entry.key, k.entryPrefix, k.flightPrefix + entry.key, k.markPrefix, ...tags],
        ),
      )) === 1;
    if (stored && this.#front !== undefined && ticket !== undefined) {
      const copy = decodeEntry(value, entry.key);
      if (copy !== undefined) this.#front.offer(copy, ticket);
    }
    return stored;
  }

  async invalidate(tags: readonly string[], writes: readonly string[] = []): Promise<{ readonly evicted: readonly string[]; readonly epoch: number }> {
    return this.#invalidate(tags, writes);
  }

  /**
   * Before a write runs: evicts its tags' entries and marks the tags, so that no replica can insert (and then serve)
   * content from before the write until this write's invalidation lifts the mark; if that invalidation never gets
   * through, the mark expires after `writeMarkMs` (BEGIN_WRITE_SCRIPT). Front tiers are told like an invalidation.
   */
  async beginWrite(tags: readonly string[], token: string): Promise<{ readonly evicted: readonly string[] }> {
    const id = randomBytes(8).toString('hex');
    const message = JSON.stringify({ t: 'inv', id, from: this.id, tags } satisfies InvMessage);
    this.#front?.evictTags(tags);
    const k = this.#k;
    const reply = await this.#run('beginWrite', () =>
      this.#script(BEGIN_WRITE_SCRIPT, [k.epoch, k.all], [k.tagPrefix, k.entryPrefix, k.inv, message, k.markPrefix, token, String(this.#writeMarkMs), ...tags]),
    );
    this.#front?.evictTags(tags);
    const [, evicted] = reply as [number, string[]];
    return { evicted: evicted.map(String) };
  }

  /** Lifts a failed write's marks. If Redis cannot be told, they expire after `writeMarkMs` (safe meanwhile: nothing is cached). */
  async endWrite(tags: readonly string[], token: string): Promise<void> {
    await this.#run('endWrite', () => this.#script(END_WRITE_SCRIPT, [this.#k.epoch], [this.#k.markPrefix, token, ...tags]));
  }

  async delete(key: string): Promise<boolean> {
    this.#front?.delete(key);
    return (await this.#run('delete', () => this.#client.del(this.#k.entryPrefix + key))) > 0;
  }

  /** Stops heartbeats, unsubscribes, and closes the client (unless `closeClient: false`). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    if (this.#retry !== undefined) clearTimeout(this.#retry);
    this.#front?.reset();
    for (const w of this.#acks.values()) w.done();
    this.#acks.clear();
    this.#offLink();
    if (this.#closeClient) await this.#client.close();
    else await this.#client.unsubscribe(this.#channels(), this.#onMessage).catch(() => undefined);
  }

  // IMPLEMENTATION

  /**
   * Before the first read after a (re)connection or a failed command: checks that the namespace's data was written
   * by the server process answering now, and wipes it when not (VERIFY_SCRIPT). A server that restarted from a
   * snapshot, or a failover to a lagging replica, brings back entries that invalidations made since had evicted.
   */
  #verify(): Promise<void> {
    const esc = (s: string): string => s.replace(/[*?[\]\\]/g, '\\$&');
    this.#verifying ??= this.#run('verify', () =>
      this.#script(VERIFY_SCRIPT, [this.#k.run, this.#k.epoch], [`${esc(this.#k.entryPrefix)}*`, `${esc(this.#k.tagPrefix)}*`]),
    )
      .then((reply) => {
        const [r, policy] = reply as [number, string];
        if (policy !== '' && !this.#evictionWarned) {
          this.#evictionWarned = true;
          this.#warn(
            'eviction_policy',
            `Redis tool-cache store: the server may evict keys (maxmemory-policy ${policy}): an evicted tag set makes a write miss the entries it should evict, which are then served stale. Give the cache a Redis with maxmemory-policy noeviction (or no maxmemory).`,
          );
        }
        if (Number(r) === 1) this.#front?.clear();
        else if (Number(r) === -1) {
          this.#warn(
            'restart_unchecked',
            'Redis tool-cache store: INFO is not available to scripts, so a server that restarted from older data (a snapshot, a failover) cannot be detected; run Redis without persistence for this namespace.',
          );
        }
        this.#verified = true;
      })
      .finally(() => {
        this.#verifying = undefined;
      });
    return this.#verifying;
  }

  async #invalidate(
    tags: readonly string[],
    writes: readonly string[],
    background = false,
  ): Promise<{ readonly evicted: readonly string[]; readonly epoch: number }> {
    // A write's own tags (not a re-send of pending ones): if they cannot reach Redis, the write outwaits the leases.
    const fresh = tags.some((t) => !this.#pending.has(t));
    // Tags whose invalidation failed earlier ride along: over-evicting is safe.
    const all = [...new Set([...this.#pending, ...tags])];
    const tokens = [...new Set([...this.#pendingWrites, ...writes])];
    const id = randomBytes(8).toString('hex');
    const message = JSON.stringify({ t: 'inv', id, from: this.id, tags: all } satisfies InvMessage);
    let settle: () => void = () => undefined;
    const acked = new Promise<void>((resolve) => (settle = resolve));
    // Registered before the script runs: acks can arrive before its reply does.
    const waiter: AckWaiter = { need: Number.POSITIVE_INFINITY, by: new Set(), done: settle };
    this.#acks.set(id, waiter);
    this.#front?.evictTags(all);
    let reply: unknown;
    try {
      reply = await this.#run('invalidate', () =>
        this.#script(
          INVALIDATE_SCRIPT,
          [this.#k.epoch, this.#k.all],
          [this.#k.tagPrefix, this.#k.entryPrefix, this.#k.inv, message, this.#k.markPrefix, String(tokens.length), ...tokens, ...all],
        ),
      );
    } catch (error) {
      this.#acks.delete(id);
      for (const t of tags) this.#pending.add(t);
      for (const w of writes) this.#pendingWrites.add(w);
      // Warned once per failed write, not per background attempt (one every ackTimeoutMs during an outage) nor per
      // re-send of tags already pending (a ToolCache re-sends them before every read while one is pending).
      if (!background && fresh) {
        this.#warn(
          'invalidation_pending',
          `Redis tool-cache store: an invalidation of ${all.length} tag(s) did not reach Redis; this process reads nothing from Redis until it is re-sent.`,
          error,
        );
      }
      this.#retryPending();
      if (fresh) await this.#outwaitLeases();
      throw error;
    }
    for (const t of all) this.#pending.delete(t);
    for (const w of tokens) this.#pendingWrites.delete(w);
    const [epoch, receivers, evicted] = reply as [number, number, string[]];
    // A read that started before the script may have filled the tier since the first eviction.
    this.#front?.evictTags(all);
    waiter.need = Number(receivers);
    if (waiter.by.size >= waiter.need) waiter.done();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      acked.then(() => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), this.#ackTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    this.#acks.delete(id);
    if (timedOut && !this.#closed) {
      this.#stats.ackTimeouts += 1;
      this.#warn(
        'ack_timeout',
        `Redis tool-cache store: ${waiter.need - waiter.by.size} of ${waiter.need} front tier(s) did not acknowledge an invalidation within ${this.#ackTimeoutMs} ms; their leases have lapsed, so they serve nothing stale.`,
      );
    }
    return { evicted: evicted.map(String), epoch: toEpoch(epoch) };
  }

  /**
   * A write whose invalidation failed returns only once no replica can still serve from a lease granted before Redis
   * became unreachable: every lease rests on a heartbeat Redis answered, so it ends within `leaseMs` (< `ackTimeoutMs`)
   * of that moment, which is no later than this failure. A read that starts after the write returned then finds no
   * front tier to serve the old entry, as with a missed ack. (Anchored at each failure, not the outage's first: Redis
   * may have answered other replicas in between without this store seeing it.) A re-send of tags already pending
   * does not wait again: their write did, and reads that retry them stay fast.
   */
  async #outwaitLeases(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, this.#ackTimeoutMs));
  }

  /**
   * Re-sends pending invalidations in the background, every `ackTimeoutMs` until one gets through. Other replicas
   * read the entries this process's write should have evicted straight from Redis once it answers again: without
   * this, they were served until this process next touched the store (never, if it sat idle or exited).
   */
  #retryPending(): void {
    if (this.#closed || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      // A failure schedules the next attempt itself (the catch in #invalidate).
      if (!this.#closed) this.#flushPending(true).catch(() => undefined);
    }, this.#ackTimeoutMs);
    this.#retry.unref();
  }

  async #flushPending(background = false): Promise<void> {
    if (this.#pending.size === 0) return;
    this.#flushing ??= this.#invalidate([], [], background)
      .then(() => undefined)
      .finally(() => {
        this.#flushing = undefined;
      });
    await this.#flushing;
  }

  async #script(s: RedisScript, keys: readonly string[], args: readonly string[]): Promise<unknown> {
    try {
      return await this.#client.evalSha(s.sha1, keys, args);
    } catch (error) {
      // After a restart (or SCRIPT FLUSH) the server forgot the script: send the source once.
      if (error instanceof Error && error.message.includes('NOSCRIPT')) return this.#client.eval(s.source, keys, args);
      throw error;
    }
  }

  /** Runs one store operation's commands; failures become a RedisStoreError, counted and warned once per outage. */
  async #run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    try {
      const v = await fn();
      if (this.#degraded) this.#recovered();
      return v;
    } catch (error) {
      this.#stats.commandErrors += 1;
      // The server may come back as another process (with older data): check again before the next read.
      this.#verified = false;
      if (!this.#degraded) {
        this.#degraded = true;
        this.#stats.outages += 1;
        this.#warn(
          'redis_unreachable',
          `Redis tool-cache store (namespace "${this.namespace}"): ${op} failed (${error instanceof Error ? error.message : String(error)}). Tool calls run uncached until Redis answers again; the client reconnects by itself.`,
          error,
        );
      }
      throw new RedisStoreError(op, error);
    }
  }

  #recovered(): void {
    this.#degraded = false;
    this.#stats.recoveries += 1;
    this.#warn('redis_recovered', `Redis tool-cache store (namespace "${this.namespace}"): Redis answers again; caching resumed.`);
  }

  async #decode(raw: string, key: string): Promise<StoredEntry | undefined> {
    const entry = decodeEntry(raw, key);
    if (entry !== undefined) return entry;
    this.#stats.decodeFailures += 1;
    this.#front?.delete(key);
    this.#warn('decode_failed', `Redis tool-cache store: the value under "${key}" is not a valid entry; deleted, answered as a miss.`);
    await this.#client.del(this.#k.entryPrefix + key).catch(() => undefined);
    return undefined;
  }

  #warn(code: RedisStoreWarningCode, message: string, cause?: unknown): void {
    try {
      this.#onWarning(cause === undefined ? { code, message } : { code, message, cause });
    } catch {
      // A throwing warning handler must not turn a degraded cache into a failed tool call.
    }
  }

  #channels(): string[] {
    return this.#front === undefined ? [this.#k.own] : [this.#k.inv, this.#k.own];
  }

  async #subscribe(): Promise<void> {
    if (this.#subscribed || this.#closed) return;
    try {
      // One SUBSCRIBE for both channels: heartbeats must not arrive on a connection that misses invalidations.
      await this.#client.subscribe(this.#channels(), this.#onMessage);
      this.#subscribed = true;
      // Earn the first lease now rather than one heartbeat interval later.
      this.#heartbeat();
    } catch {
      // Offline: retried when the subscriber connection is ready.
    }
  }

  #onLink(e: RedisLinkEvent): void {
    if (e.link === 'command') this.#verified = false;
    if (e.link === 'subscriber') {
      // Messages may have been lost while the link was down: nothing cached locally is trustworthy.
      this.#front?.reset();
      if (e.state === 'ready') {
        if (this.#subscribed) this.#heartbeat();
        else void this.#subscribe();
      }
    } else if (e.state === 'ready' && this.#degraded) {
      this.#recovered();
    }
  }

  readonly #onMessage = (message: string): void => {
    const m = parseMessage(message);
    if (m === undefined) return;
    if (m.t === 'inv') {
      this.#front?.evictTags(m.tags);
      const ack = JSON.stringify({ t: 'ack', id: m.id, by: this.id } satisfies AckMessage);
      this.#client.publish(`{${this.namespace}}:s:${m.from}`, ack).catch(() => undefined);
    } else if (m.t === 'ack') {
      const w = this.#acks.get(m.id);
      if (w === undefined) return;
      // Counted per replica id: a listener registered twice must not stand in for another replica.
      w.by.add(m.by);
      if (w.by.size >= w.need) w.done();
    } else if (m.t === 'hb') {
      this.#front?.heartbeatReceived(m.n);
    }
  };

  #heartbeat(): void {
    if (this.#front === undefined || this.#closed || !this.#client.isReady()) return;
    const n = this.#front.heartbeatSent();
    this.#client.publish(this.#k.own, JSON.stringify({ t: 'hb', n } satisfies HeartbeatMessage)).catch(() => undefined);
  }
}

/** A bus message, or undefined for anything malformed (another program on our channels must not crash us). */
function parseMessage(raw: string): StoreMessage | undefined {
  let m: unknown;
  try {
    m = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof m !== 'object' || m === null) return undefined;
  const o = m as Record<string, unknown>;
  if (o.t === 'inv' && typeof o.id === 'string' && typeof o.from === 'string' && Array.isArray(o.tags) && o.tags.every((t) => typeof t === 'string')) {
    return o as unknown as InvMessage;
  }
  if (o.t === 'ack' && typeof o.id === 'string' && typeof o.by === 'string') return o as unknown as AckMessage;
  if (o.t === 'hb' && typeof o.n === 'number') return o as unknown as HeartbeatMessage;
  return undefined;
}

function toEpoch(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isSafeInteger(n)) throw new RedisStoreError('epoch', new Error(`epoch is not an integer: ${String(v)}`));
  return n;
}

const warnedOnce = new Set<RedisStoreWarningCode>();

function defaultWarning(w: RedisStoreWarning): void {
  // Outage and recovery are worth a line each time; per-value noise only once per process.
  if ((w.code === 'decode_failed' || w.code === 'ack_timeout' || w.code === 'restart_unchecked' || w.code === 'eviction_policy') && warnedOnce.has(w.code))
    return;
  warnedOnce.add(w.code);
  process.emitWarning(w.message, { type: 'CachepointWarning', code: w.code });
}

/** The store's own option keys (what `createRedisToolCacheStore` also takes, besides the client's). */
export const STORE_OPTION_KEYS = {
  namespace: true,
  frontTier: true,
  ackTimeoutMs: true,
  defaultMaxAgeMs: true,
  writeMarkMs: true,
  flightPollMs: true,
  onWarning: true,
} as const;
