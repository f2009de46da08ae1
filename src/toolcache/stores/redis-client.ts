/**
 * The small client surface the Redis tool-cache store needs. The store is
 * written against this interface only, so the core never requires a Redis
 * package: `nodeRedisClient` adapts node-redis v6 (`redis`), and docs/redis.md
 * sketches the same ten lines for ioredis.
 *
 * Two connections are implied: one for commands and one for subscriptions
 * (Redis forbids ordinary commands on a RESP2 connection in subscribe mode).
 * An adapter must make commands fail fast while the link is down (node-redis:
 * `disableOfflineQueue: true`) so a cache call never waits for a reconnect.
 */

/** A server-side script: its source and SHA-1 (for EVALSHA). */
export interface RedisScript {
  readonly source: string;
  readonly sha1: string;
}

/** Which of the two connections an event is about. */
export type RedisLink = 'command' | 'subscriber';

/** A connection came up (`ready`) or went away (`down`). */
export interface RedisLinkEvent {
  readonly link: RedisLink;
  readonly state: 'ready' | 'down';
  readonly error?: unknown;
}

/** Called with each message on a subscribed channel, in the order the server sent them. */
export type RedisMessageListener = (message: string, channel: string) => void;

/**
 * What the Redis store calls. Every method rejects (never hangs) when the
 * server is unreachable or slower than the adapter's command timeout.
 */
export interface RedisLike {
  get(key: string): Promise<string | null>;
  /**
   * Optional: MGET, the values of `keys` in one command (null for a missing key). A hit reads its entry and the
   * namespace's last write to everything together; without `mget` the store sends two GETs at once instead.
   */
  mget?(keys: readonly string[]): Promise<ReadonlyArray<string | null>>;
  del(key: string): Promise<number>;
  /** EVALSHA; rejects with an error whose message contains `NOSCRIPT` when the server does not know the script. */
  evalSha(sha1: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** EVAL with the full source (the store falls back to it after NOSCRIPT). */
  eval(source: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** PUBLISH; resolves to the number of subscribed connections that received the message. */
  publish(channel: string, message: string): Promise<number>;
  /**
   * Subscribes `listener` on the subscriber connection; resolves once the server
   * confirmed. All `channels` must be subscribed by one SUBSCRIBE command, and
   * the adapter must re-subscribe everything in one command after a reconnect:
   * the front tier relies on messages of all its channels arriving in publish order.
   */
  subscribe(channels: readonly string[], listener: RedisMessageListener): Promise<void>;
  unsubscribe(channels: readonly string[], listener: RedisMessageListener): Promise<void>;
  /** Connection state changes of either link. Returns the unsubscribe function. */
  onLinkEvent(listener: (event: RedisLinkEvent) => void): () => void;
  /** Whether the command connection is currently usable. */
  isReady(): boolean;
  /** Closes both connections. */
  close(): Promise<void>;
}
