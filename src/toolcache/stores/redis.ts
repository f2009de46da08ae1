/**
 * `cachepoint/redis`: the shared tool-result cache on Redis. See
 * redis-store.ts for how it works and docs/redis.md for how to use it.
 */

import type { RedisToolCacheStoreOptions } from './redis-api.js';
import { connectNodeRedis, type NodeRedisClientOptions } from './redis-node.js';
import { optionKeys, refuseUnknownKeys } from '../../internal/option-keys.js';
import { RedisToolCacheStore, STORE_OPTION_KEYS } from './redis-store.js';
import { RedisConversationStore, type RedisConversationStoreOptions } from '../../conversation/redis-store.js';

export { RedisStoreError } from './redis-api.js';
export type {
  RedisStoreWarning,
  RedisStoreWarningCode,
  RedisToolCacheStoreOptions,
  RedisToolCacheStoreStats,
} from './redis-api.js';
export type { RedisLike, RedisLink, RedisLinkEvent, RedisMessageListener, RedisScript } from './redis-client.js';
export type { FrontTierOptions } from './redis-front.js';
export type { NodeRedisClientLike, NodeRedisClientOptions } from './redis-node.js';
export { adaptNodeRedis, nodeRedisClient, recommendedNodeRedisOptions } from './redis-node.js';
export { RedisToolCacheStore } from './redis-store.js';
export { RedisConversationStore } from '../../conversation/redis-store.js';
export type { RedisConversationStoreOptions } from '../../conversation/redis-store.js';

/** Options of {@link createRedisToolCacheStore}: the store's and the node-redis client's. */
export type CreateRedisToolCacheStoreOptions = Omit<RedisToolCacheStoreOptions, 'client' | 'closeClient'> & NodeRedisClientOptions;

/**
 * Connects to Redis with node-redis v6 (an optional peer dependency: install
 * `redis`) and returns the store. Never fails because Redis is down: calls pass
 * through until it is reachable.
 *
 * @example
 * ```ts
 * const store = await createRedisToolCacheStore({ url: 'redis://cache.internal:6379', namespace: 'agents-prod' });
 * ```
 */
export async function createRedisToolCacheStore(options: CreateRedisToolCacheStoreOptions = {}): Promise<RedisToolCacheStore> {
  refuseUnknownKeys(options, CREATE_TOOL_CACHE_KEYS);
  const [clientOpts, storeOptions] = splitClientOptions(options);
  const client = await connectNodeRedis(clientOpts, 'createRedisToolCacheStore', 'pass your own client (a RedisLike) to `new RedisToolCacheStore({ client })`');
  try {
    return new RedisToolCacheStore({ ...storeOptions, client });
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Options of {@link createRedisConversationStore}: the store's and the node-redis client's. */
export type CreateRedisConversationStoreOptions = Omit<RedisConversationStoreOptions, 'client' | 'closeClient'> & NodeRedisClientOptions;

/**
 * Connects with node-redis v6 (optional peer: install `redis`) and returns a
 * conversation store for `prepare` that every worker can share. While Redis is
 * down, `prepare` renders without stored decisions and flags it in the plan.
 *
 * @example
 * ```ts
 * const store = await createRedisConversationStore({ url: process.env.REDIS_URL, namespace: 'agents' });
 * ```
 */
export async function createRedisConversationStore(options: CreateRedisConversationStoreOptions = {}): Promise<RedisConversationStore> {
  refuseUnknownKeys(options, CREATE_CONVERSATION_STORE_KEYS);
  const [clientOpts, storeOptions] = splitClientOptions(options);
  const client = await connectNodeRedis(
    clientOpts,
    'createRedisConversationStore',
    'pass your own client (a RedisLike) to `new RedisConversationStore({ client })`',
  );
  return new RedisConversationStore({ ...storeOptions, client, closeClient: true });
}

/** A create function's options: the node-redis client's (the ones given) and the store's (the rest). */
function splitClientOptions<T extends NodeRedisClientOptions>(options: T): [NodeRedisClientOptions, Omit<T, keyof NodeRedisClientOptions>] {
  const { url, commandTimeoutMs, connectTimeoutMs, maxReconnectDelayMs, clientOptions, ...storeOptions } = options;
  const client: NodeRedisClientOptions = {
    ...(url !== undefined && { url }),
    ...(commandTimeoutMs !== undefined && { commandTimeoutMs }),
    ...(connectTimeoutMs !== undefined && { connectTimeoutMs }),
    ...(maxReconnectDelayMs !== undefined && { maxReconnectDelayMs }),
    ...(clientOptions !== undefined && { clientOptions }),
  };
  return [client, storeOptions];
}

/** The client's options, shared by both create functions. */
const CLIENT_KEYS = { url: true, commandTimeoutMs: true, connectTimeoutMs: true, maxReconnectDelayMs: true, clientOptions: true } as const;

/** The keys of {@link CreateRedisToolCacheStoreOptions}: a misspelled `namespace` would silently share another deployment's keys. */
const CREATE_TOOL_CACHE_KEYS = optionKeys<CreateRedisToolCacheStoreOptions>({ ...CLIENT_KEYS, ...STORE_OPTION_KEYS });

/** The keys of {@link CreateRedisConversationStoreOptions}. */
const CREATE_CONVERSATION_STORE_KEYS = optionKeys<CreateRedisConversationStoreOptions>({ ...CLIENT_KEYS, namespace: true, idleMs: true });
