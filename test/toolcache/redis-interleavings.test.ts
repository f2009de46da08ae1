/**
 * The staleness promise under explored interleavings on a real redis-server: a fleet of two caches, each with its
 * own RedisToolCacheStore (its own connections, as two processes have), sharing one namespace, with and without the
 * front tier; reads, whole-family and second-TTL reads, writes, ticks, armed store faults, distributed singleflight
 * (each wait poll a scheduling point) and, in some scenarios, the server stopped and started again (its data lost).
 * Seeds are fixed; the scheduler and the oracle are in interleavings.ts.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import { drawScenario, type Outcome, prng, runScenario, Scheduler, scheduledStore } from './interleavings.js';
import { openStore, rawClient, until } from './redis-fixtures/helpers.js';
import { type RedisServerHandle, startRedisServer, uniqueNamespace } from './redis-fixtures/server.js';

const REPLICAS = 2;
let server: RedisServerHandle;
let raw: Awaited<ReturnType<typeof rawClient>>;

beforeAll(async () => {
  server = await startRedisServer();
  raw = await rawClient(server.url);
});

afterAll(async () => {
  await raw.quit().catch(() => undefined);
  await server.destroy();
});

const seen = { frontHits: 0, restarts: 0, flightWaitHits: 0, outages: 0 };

async function explore(seed: number, frontTier: boolean, restarts: boolean): Promise<Outcome> {
  const random = prng(seed);
  const ops = drawScenario(random, 6 + Math.floor(random() * 9), REPLICAS, restarts);
  const s = new Scheduler(random);
  const ns = uniqueNamespace(`explore-${seed}`);
  const opened: RedisToolCacheStore[] = [];
  try {
    return await runScenario(
      s,
      ops,
      async (sched, faults, onInvalidated) => {
        const stores = [];
        for (let r = 0; r < REPLICAS; r++) {
          const { store } = await openStore(server.url, ns, {
            commandTimeoutMs: 1000,
            maxReconnectDelayMs: 50,
            ackTimeoutMs: 300,
            ...(frontTier ? { frontTier: { leaseMs: 150 } } : {}),
          });
          opened.push(store);
          stores.push(
            scheduledStore(sched, store, `store${r}`, faults[r]!, {
              onInvalidated: (tags) => onInvalidated(r, tags),
              lockHeld: async (key) => (await raw.exists(`{${ns}}:l:${key}`)) === 1,
            }),
          );
        }
        if (frontTier) await until(() => opened.every((st) => st.frontTierLeased));
        return {
          stores,
          async restart(sch) {
            seen.restarts += 1;
            await sch.io(server.stop());
            await sch.point('redis-server stopped');
            await sch.io(
              (async () => {
                await server.start();
                await until(async () => {
                  if (!opened.every((st) => st.stats.connected && (!frontTier || st.frontTierLeased))) return false;
                  return raw.ping().then(
                    () => true,
                    () => false,
                  );
                });
              })(),
            );
          },
        };
      },
      REPLICAS,
    );
  } finally {
    for (const st of opened) {
      seen.frontHits += st.stats.frontHits;
      seen.flightWaitHits += st.stats.flightWaitHits;
      seen.outages += st.stats.outages;
      await st.close();
    }
  }
}

function report(seed: number, o: Outcome): string {
  return `seed ${seed}: ${[...o.violations, ...o.errors.map(String)].join('\n')}\ntrace: ${o.trace.join(' | ')}`;
}

describe('ToolCache fleet on Redis: explored interleavings', () => {
  for (const frontTier of [false, true]) {
    it(`never serves a stale or expired answer across the fleet${frontTier ? ' (front tier)' : ''} (fixed seeds)`, { timeout: 180_000 }, async () => {
      const totals: Record<string, number> = {};
      for (let seed = 1; seed <= Number(process.env.EXPLORE_REDIS_SEEDS ?? 40); seed++) {
        const o = await explore(seed, frontTier, seed % 4 === 0);
        if (o.violations.length > 0 || o.errors.length > 0) expect.fail(report(seed, o));
        for (const [k, n] of Object.entries(o.counts)) totals[k] = (totals[k] ?? 0) + n;
      }
      if (process.env.EXPLORE_REDIS_SEEDS !== undefined) console.log(totals, seen);
      expect(totals['read:hit'] ?? 0).toBeGreaterThan(0);
    });
  }
});
