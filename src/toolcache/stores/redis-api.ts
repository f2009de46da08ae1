/** Public types and the error of the Redis tool-cache store (re-exported by `cachepoint/redis`). */

import { CachepointError } from '../../errors.js';
import type { RedisLike } from './redis-client.js';
import type { FrontTierOptions } from './redis-front.js';

/** Options of {@link RedisToolCacheStore}. */
export interface RedisToolCacheStoreOptions {
  /** The connection pair (see {@link nodeRedisClient}, or bring your own {@link RedisLike}). */
  readonly client: RedisLike;
  /** One per deployment: replicas that share hits share a namespace. No `{`, `}`. Default `cachepoint`. */
  readonly namespace?: string;
  /** Enables the in-process front tier (`true` for defaults). Off by default. */
  readonly frontTier?: boolean | FrontTierOptions;
  /**
   * How long `invalidate` waits for the front tiers that received its message
   * to acknowledge. Must exceed every replica's `leaseMs`. Default 1000.
   */
  readonly ackTimeoutMs?: number;
  /**
   * Native expiry for entries without `expiresAtMs` (turn-TTL entries: their
   * turn clock is per session and checked on read, so Redis needs a bound of
   * its own). `Infinity` keeps them until evicted. Default 24 h.
   */
  readonly defaultMaxAgeMs?: number;
  /**
   * How long a running write's mark keeps entries of its tags out of Redis when its invalidation never arrives
   * (the writer lost Redis mid-write, or died; see `beginWrite` in store.ts). The writer lifts it sooner, as soon
   * as its invalidation gets through. Default 300,000 (5 min).
   */
  readonly writeMarkMs?: number;
  /** Singleflight waiters poll this often when no notification arrives. Default 100. */
  readonly flightPollMs?: number;
  /** Receives warnings (unreachable, recovered, decode failure, …). Default: `process.emitWarning`. */
  readonly onWarning?: (warning: RedisStoreWarning) => void;
  /** Close `client` in {@link RedisToolCacheStore.close}. Default true. */
  readonly closeClient?: boolean;
}

/** What a warning is about. */
export type RedisStoreWarningCode =
  | 'redis_unreachable'
  | 'redis_recovered'
  | 'decode_failed'
  | 'ack_timeout'
  | 'invalidation_pending'
  | 'restart_unchecked'
  | 'eviction_policy';

/** A warning: something degraded, calls still succeed. */
export interface RedisStoreWarning {
  readonly code: RedisStoreWarningCode;
  readonly message: string;
  readonly cause?: unknown;
}

/** Counters since the store was created. */
export interface RedisToolCacheStoreStats {
  /** Whether the command connection is up now. */
  readonly connected: boolean;
  /** Commands that failed (unreachable, timeout, server error); each one was a pass-through upstream. */
  readonly commandErrors: number;
  /** Times the store went from working to failing. */
  readonly outages: number;
  /** Times it came back after an outage. */
  readonly recoveries: number;
  /** Stored values that failed to decode; each was deleted and answered as a miss. */
  readonly decodeFailures: number;
  /** Invalidations that could not reach Redis yet (re-sent before the next read). */
  readonly pendingInvalidationTags: number;
  /** Writers that returned without every front tier's ack (they waited `ackTimeoutMs`). */
  readonly ackTimeouts: number;
  readonly frontHits: number;
  readonly frontMisses: number;
  /** Front-tier entries evicted by invalidation messages. */
  readonly frontEvictions: number;
  /** Whole front-tier clears (subscription lost or lease lapsed). */
  readonly frontResets: number;
  readonly frontSize: number;
  readonly flightWaits: number;
  readonly flightWaitHits: number;
  /** Waits that ended because the owner finished without an entry or died (the caller runs the tool). */
  readonly flightWaitGaveUp: number;
  readonly flightWaitTimeouts: number;
}

/** A Redis command failed; `op` names the store operation. The original error is `cause`. */
export class RedisStoreError extends CachepointError {
  readonly op: string;
  constructor(op: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super('cache_store', `Redis tool-cache store: ${op} failed (${why}). The call runs uncached; check that Redis is reachable at the configured URL.`, {
      cause,
    });
    this.op = op;
  }
}
