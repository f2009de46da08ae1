/**
 * The drop-in door's property loops (doors.ts) with a real Redis conversation
 * store among the stores a loop starts on or moves to, and recordUsage after
 * every response in half the loops. A redis-server from REDIS_URL or a private
 * one (test/toolcache/redis-fixtures/server.ts); the file is skipped with a
 * loud line where there is neither, outside CI (vitest.config.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConversationStore } from '../../src/conversation/redis-store.js';
import { nodeRedisClient } from '../../src/toolcache/stores/redis-node.js';
import type { RedisLike } from '../../src/toolcache/stores/redis-client.js';
import { sharedRedis, uniqueNamespace } from '../toolcache/redis-fixtures/server.js';
import { doorScript, emptyDoorStats, runDoorScript } from './doors.js';

const runs = Number(process.env.FUZZ_DOORS_RUNS ?? 16);

let redis: { readonly url: string; release(): Promise<void> };
let client: RedisLike;
beforeAll(async () => {
  redis = await sharedRedis();
  // A generous command timeout: these loops check the door, not Redis faults (redis-faults.test.ts does), and the
  // 500 ms default sent a prepare to the store_unavailable fallback on a loaded machine (load 14).
  client = await nodeRedisClient({ url: redis.url, commandTimeoutMs: 10_000 });
});
afterAll(async () => {
  await client?.close();
  await redis?.release();
});

describe('random loops through prepare on a Redis conversation store, with recordUsage', () => {
  it(`the doors checks hold with Redis and fed-back usage (${runs} cases)`, async () => {
    const stats = emptyDoorStats();
    const prefix = uniqueNamespace('doors');
    const env = { redis: (ns: string) => new RedisConversationStore({ client, namespace: `${prefix}-${ns}` }) };
    // Every loop starts on Redis; usage is fed back in the loops that draw it (and always in the examples).
    const scripts = doorScript.map((s) => ({ ...s, store: 'redis' as const }));
    await fc.assert(
      fc.asyncProperty(scripts, (script) => runDoorScript(script, stats, env)),
      { numRuns: runs, endOnFailure: true },
    );
    expect(stats.redisRequests).toBeGreaterThan(0);
    // What the run covered, guaranteed by every loop starting on Redis and by the two fixed loops below.
    const fixed = emptyDoorStats();
    const [a, b] = fc.sample(doorScript, { numRuns: 2, seed: 42 });
    await runDoorScript({ ...a!, store: 'redis', usage: true }, fixed, env);
    await runDoorScript({ ...b!, store: 'file', usage: true, mutations: [{ at: 1, kind: 'switch', pick: 0 }] }, fixed, env);
    expect(fixed.usageRecorded).toBeGreaterThan(0);
    expect(fixed.redisRequests).toBeGreaterThan(0);
  }, 600_000);
});
