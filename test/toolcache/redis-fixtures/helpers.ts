/** Test helpers shared by the Redis store tests: entries, stores that record warnings, a raw client. */

import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { fileTag } from '../../../src/toolcache/policy.js';
import type { StoredEntry } from '../../../src/toolcache/store.js';
import { ToolCache } from '../../../src/toolcache/tool-cache.js';
import { sharedRedis } from './server.js';
import {
  createRedisToolCacheStore,
  type CreateRedisToolCacheStoreOptions,
  type RedisStoreWarning,
  type RedisToolCacheStore,
} from '../../../src/toolcache/stores/redis.js';

export function entry(key: string, tags: readonly string[] = [], extra: Partial<StoredEntry> = {}): StoredEntry {
  return {
    key,
    tool: 'Read',
    scope: 'tenant-a',
    content: `content of ${key}`,
    durationMs: 12,
    insertedTurn: 1,
    insertedAtMs: Date.now(),
    tags,
    ...extra,
  };
}

export interface TestStore {
  readonly store: RedisToolCacheStore;
  readonly warnings: RedisStoreWarning[];
}

export async function openStore(
  url: string,
  namespace: string,
  options: Omit<CreateRedisToolCacheStoreOptions, 'url' | 'namespace' | 'onWarning'> = {},
): Promise<TestStore> {
  const warnings: RedisStoreWarning[] = [];
  const store = await createRedisToolCacheStore({
    url,
    namespace,
    onWarning: (w) => warnings.push(w),
    ...options,
  });
  return { store, warnings };
}

/** A plain node-redis client, to look at (or tamper with) what the store wrote. */
export async function rawClient(url: string) {
  const c = createClient({ url });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `check` until it returns true or `timeoutMs` passes. The default is far above what anything takes on a
 * quiet machine (a reconnect, a first heartbeat: milliseconds): it only bounds how long a real failure waits, so
 * a loaded machine (2 vitest workers, child processes, other jobs) cannot turn a slow success into a failure.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000, stepMs = 20): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(stepMs);
  }
  return check();
}

/**
 * A replica of a fleet: a ToolCache on `ts.store` in front of the in-memory files `files` (the truth), with `Read`
 * cached for 600 s and `Edit` a write; `write`'s `during` runs inside the tool, before it writes.
 */
export function replica(ts: TestStore, files: Map<string, string>) {
  const cache = new ToolCache({ store: ts.store, flightTimeoutMs: 2000 });
  cache.register('Read', { cacheable: true, ttl: { seconds: 600 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  let n = 0;
  const read = (path: string) => cache.call('Read', { path }, (a: { path: string }) => files.get(a.path) ?? '', { scope: 's', callId: `r${++n}` });
  const write = (path: string, content: string, during?: () => Promise<void>) =>
    cache.call(
      'Edit',
      { path, content },
      async (a: { path: string; content: string }) => {
        await during?.();
        files.set(a.path, a.content);
        return 'ok';
      },
      { scope: 's', callId: `w${++n}` },
    );
  return { cache, read, write };
}

/**
 * For a describe block: the shared Redis (REDIS_URL, or a private server) and stores opened on it, closed after
 * each test. `url()` is valid inside tests.
 */
export function useSharedRedis() {
  let redis: Awaited<ReturnType<typeof sharedRedis>> | undefined;
  const opened: TestStore[] = [];
  beforeAll(async () => {
    redis = await sharedRedis();
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.store.close();
  });
  afterAll(async () => {
    await redis?.release();
  });
  const url = (): string => {
    if (redis === undefined) throw new Error('useSharedRedis: url() is valid inside tests only');
    return redis.url;
  };
  return { url, opened };
}

/** Two stores on one namespace of `url` (two replicas of a fleet), closed via `opened`; with a front tier, once both hold their lease. */
export async function twoStores(
  url: string,
  namespace: string,
  opened: TestStore[],
  options: Omit<CreateRedisToolCacheStoreOptions, 'url' | 'namespace' | 'onWarning'> = {},
): Promise<[TestStore, TestStore]> {
  const a = await openStore(url, namespace, options);
  const b = await openStore(url, namespace, options);
  opened.push(a, b);
  if (options.frontTier !== undefined && !(await until(() => a.store.frontTierLeased && b.store.frontTierLeased)))
    throw new Error('twoStores: the front tiers never got their leases');
  return [a, b];
}
