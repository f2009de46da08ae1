/**
 * The optional in-process front tier of the Redis store: a small LRU of
 * decoded entries so hot hits skip the network.
 *
 * Contract: it never serves an entry that another replica invalidated after
 * that replica's write returned. Pub/sub alone cannot promise that (a message
 * may still be in flight when the write returns), so two mechanisms combine:
 *
 * 1. **Acks (the fast path).** The invalidation script publishes the message
 *    atomically with the eviction; PUBLISH reports how many front tiers
 *    received it, and the writer's `invalidate` returns only after that many
 *    distinct front tiers acknowledged, each after evicting locally.
 * 2. **Leases (the safety net).** A front tier serves only while it holds a
 *    lease: it publishes a heartbeat to its own channel every `leaseMs / 5` and
 *    the lease lasts `leaseMs` from when the heartbeat was *sent*. Redis
 *    delivers messages to one connection in publish order, so receiving a
 *    heartbeat proves every invalidation published before it was processed.
 *    A writer that misses an ack waits `ackTimeoutMs` (> `leaseMs`) before it
 *    returns; by then the silent replica's lease, which can only rest on
 *    heartbeats published before the invalidation, has run out, and a lapsed
 *    lease clears the tier.
 *
 * Filling the tier after a network read is guarded like the store's epoch: a
 * read may fill it only if the lease was held when the read started and no
 * invalidation or connection change happened until it finished (`ticket`).
 */

import type { StoredEntry } from '../store.js';
import { TaggedEntries } from '../tag-index.js';

/** Options of the front tier. */
export interface FrontTierOptions {
  /** Size bound (least recently used entries leave first). Default 1000. */
  readonly maxEntries?: number;
  /** How long one heartbeat keeps the tier trusted. Default 500. Must be below the store's `ackTimeoutMs`. */
  readonly leaseMs?: number;
}

/** A snapshot taken before a network read, checked before the result may enter the tier. */
export interface FrontTicket {
  readonly seq: number;
  readonly leased: boolean;
}

export class FrontTier {
  readonly maxEntries: number;
  readonly leaseMs: number;
  readonly #entries = new TaggedEntries();
  /** When an entry with a second TTL leaves the tier at the latest (monotonic ms), by entry. */
  readonly #deadlines = new WeakMap<StoredEntry, number>();
  /** Bumped by every invalidation and every reset: in-flight reads compare it. */
  #seq = 0;
  #leaseUntil = 0;
  #hbSeq = 0;
  readonly #hbSentAt = new Map<number, number>();
  /** Entries dropped by invalidation messages / whole-tier resets. */
  evictions = 0;
  resets = 0;

  constructor(options: FrontTierOptions) {
    this.maxEntries = options.maxEntries ?? 1000;
    this.leaseMs = options.leaseMs ?? 500;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether the tier may serve now. Monotonic clock: wall-clock jumps cannot extend a lease. */
  leased(now = performance.now()): boolean {
    return now < this.#leaseUntil;
  }

  /** A hit, or undefined. A lapsed lease clears the whole tier on sight. */
  get(key: string): StoredEntry | undefined {
    if (!this.leased()) {
      if (this.#entries.size > 0) this.reset();
      return undefined;
    }
    const e = this.#entries.get(key, true);
    if (e === undefined) return undefined;
    // Memory hygiene only, on this process's monotonic clock: the memoizer judges TTLs on its own
    // (possibly injected) clock, so the entry's absolute expiry is never compared with ours.
    const deadline = this.#deadlines.get(e);
    if (deadline !== undefined && performance.now() >= deadline) {
      this.delete(key);
      return undefined;
    }
    return e;
  }

  ticket(): FrontTicket {
    return { seq: this.#seq, leased: this.leased() };
  }

  /** Puts a (frozen) entry read or written at `ticket` time, if nothing could have made it stale since. */
  offer(entry: StoredEntry, ticket: FrontTicket): boolean {
    if (!ticket.leased || ticket.seq !== this.#seq || !this.leased()) return false;
    this.#entries.set(entry, this.maxEntries);
    if (entry.ttlMs !== undefined) this.#deadlines.set(entry, performance.now() + entry.ttlMs);
    return true;
  }

  /** Drops every entry carrying any of `tags` and cancels in-flight fills. Returns how many left. */
  evictTags(tags: readonly string[]): number {
    this.#seq += 1;
    const n = this.#entries.deleteTagged(tags).length;
    this.evictions += n;
    return n;
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  /** Forgets every entry and cancels in-flight fills, keeping the lease (the data behind them was wiped). */
  clear(): void {
    this.#seq += 1;
    this.#entries.clear();
  }

  /** Forgets everything and the lease (subscription lost, lease lapsed, close). */
  reset(): void {
    this.#seq += 1;
    this.#leaseUntil = 0;
    this.#hbSentAt.clear();
    if (this.#entries.size > 0) this.resets += 1;
    this.#entries.clear();
  }

  /** Records that heartbeat `n` is about to be published; returns `n`. */
  heartbeatSent(): number {
    this.#hbSeq += 1;
    this.#hbSentAt.set(this.#hbSeq, performance.now());
    // Heartbeats whose PUBLISH failed never come back; keep the map small.
    if (this.#hbSentAt.size > 64) {
      const oldest = this.#hbSentAt.keys().next().value as number;
      this.#hbSentAt.delete(oldest);
    }
    return this.#hbSeq;
  }

  /** Heartbeat `n` came back through the subscription: trust the tier until `sentAt + leaseMs`. */
  heartbeatReceived(n: number): void {
    const sentAt = this.#hbSentAt.get(n);
    if (sentAt === undefined) return;
    for (const k of this.#hbSentAt.keys()) if (k <= n) this.#hbSentAt.delete(k);
    this.#leaseUntil = Math.max(this.#leaseUntil, sentAt + this.leaseMs);
  }
}
