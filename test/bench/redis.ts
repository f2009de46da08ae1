/**
 * Redis tool-cache store benchmark: hit latency through the real ToolCache on
 * three stores measured in one run (the in-memory store is the baseline), and
 * the cost of a write's invalidation.
 *
 * - memory store (baseline)
 * - Redis store (one GET per hit)
 * - Redis store + front tier (hot hits answered in-process, no round trip)
 *
 * Starts its own redis-server on a free loopback port (needs `redis-server` on
 * PATH) and stops it at the end.
 *
 * Run: `npx tsx test/bench/redis.ts` (or through the bench runner).
 */

import { createClient } from 'redis';
import { fileTag } from '../../src/toolcache/policy.js';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { ToolCacheStore } from '../../src/toolcache/store.js';
import { createRedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { startRedisServer } from '../toolcache/redis-fixtures/server.js';

type Row = { name: string; value: number | string; unit?: string; baseline?: string };

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Median per-call time in µs of each function, over `batches` batches of `per`
 * sequential calls. Batches of the functions alternate, so load on the machine
 * drifts over all of them alike and the ratios stay fair.
 */
async function interleavedMicros(batches: number, per: number, fns: ReadonlyArray<() => Promise<unknown>>): Promise<number[]> {
  const samples: number[][] = fns.map(() => []);
  for (let b = 0; b < batches; b++) {
    for (const [i, fn] of fns.entries()) {
      const t0 = performance.now();
      for (let k = 0; k < per; k++) await fn();
      samples[i]!.push(((performance.now() - t0) * 1000) / per);
    }
  }
  return samples.map(median);
}

const RAW_RUNS = 7;
const CONTENT = 'line of source\n'.repeat(200); // ~3 KB result
const ARGS = { path: 'src/services/billing/invoice-renderer.ts', offset: 120, limit: 400 };

function cacheOn(store: ToolCacheStore): ToolCache {
  const cache = new ToolCache({ store, session: 'bench' });
  cache.register('Read', { cacheable: true, ttl: { turns: 1_000_000 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  return cache;
}

async function hitCall(cache: ToolCache): Promise<() => Promise<unknown>> {
  const tool = async (): Promise<string> => CONTENT;
  let n = 0;
  const hit = () => cache.call('Read', ARGS, tool, { scope: 'bench', callId: `c${++n}` });
  await hit();
  const check = await hit();
  if (check.cache.type !== 'hit') throw new Error(`bench setup: expected a hit, got ${check.cache.type}`);
  for (let i = 0; i < 2000; i++) await hit(); // JIT warm-up (and front-tier fill)
  return hit;
}

async function writeCall(cache: ToolCache): Promise<() => Promise<unknown>> {
  const edit = async (): Promise<string> => 'ok';
  let n = 0;
  const write = () => cache.call('Edit', { path: ARGS.path, content: 'x' }, edit, { scope: 'bench', callId: `w${++n}` });
  for (let i = 0; i < 300; i++) await write();
  return write;
}

export default async function bench(): Promise<Row[]> {
  const server = await startRedisServer();
  const quiet = (): void => undefined;
  const stores: ToolCacheStore[] = [];
  try {
    const memory = new MemoryToolCacheStore();
    const redis = await createRedisToolCacheStore({ url: server.url, namespace: 'bench', onWarning: quiet });
    const front = await createRedisToolCacheStore({ url: server.url, namespace: 'bench-front', frontTier: true, onWarning: quiet });
    stores.push(redis, front);
    for (let i = 0; i < 100 && !front.frontTierLeased; i++) await new Promise((r) => setTimeout(r, 10));

    const caches = [cacheOn(memory), cacheOn(redis), cacheOn(front)];
    const hits = await Promise.all(caches.map(hitCall));
    const [memUs, redisUs, frontUs] = (await interleavedMicros(40, 100, hits)) as [number, number, number];

    // A raw node-redis GET of the very key a hit reads (default client options), against a hit
    // through the Redis store, alternated batch by batch; median and range over repeated runs.
    const raw = createClient({ url: server.url });
    raw.on('error', quiet);
    await raw.connect();
    // The floor: the same GET without node-redis's own per-command timeout (an AbortSignal.timeout per command).
    const bare = createClient({ url: server.url, commandOptions: { timeout: 0 } });
    bare.on('error', quiet);
    await bare.connect();
    const key = `{bench}:e:${caches[1]!.keyOf('Read', ARGS, 'bench')}`;
    if ((await raw.get(key)) === null) throw new Error(`bench setup: ${key} is not in Redis`);
    const rawGet = () => raw.get(key);
    const bareGet = () => bare.get(key);
    for (let i = 0; i < 2000; i++) {
      await rawGet();
      await bareGet();
    }
    const ratios: number[] = [];
    const bareRatios: number[] = [];
    const rawUs: number[] = [];
    const storeUs: number[] = [];
    for (let r = 0; r < RAW_RUNS; r++) {
      const [h, g, f] = (await interleavedMicros(20, 50, [hits[1]!, rawGet, bareGet])) as [number, number, number];
      storeUs.push(h);
      rawUs.push(g);
      ratios.push(h / g);
      bareRatios.push(h / f);
    }
    await raw.quit();
    await bare.quit();
    const range = (xs: number[], d: number) => `${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)}`;
    const frontHitShare = front.stats.frontHits / Math.max(1, front.stats.frontHits + front.stats.frontMisses);

    // The front-tier store's writes wait for one ack (its own subscription receives them).
    const writes = [];
    for (const c of caches) writes.push(await writeCall(c));
    const [memWriteUs, redisWriteUs, frontWriteUs] = (await interleavedMicros(20, 50, writes)) as [number, number, number];

    const base = `memory store ${memUs.toFixed(2)} µs`;
    const wbase = `memory store ${memWriteUs.toFixed(2)} µs`;
    return [
      {
        name: 'redis: hit through the Redis store ÷ raw node-redis GET of the same key (target ≤ 1.2)',
        value: Number(median(ratios).toFixed(2)),
        unit: '×',
        baseline: `range ${range(ratios, 2)} over ${RAW_RUNS} runs; hit ${median(storeUs).toFixed(1)} µs (${range(storeUs, 1)}), GET ${median(rawUs).toFixed(1)} µs (${range(rawUs, 1)})`,
      },
      {
        name: 'redis: hit through the Redis store ÷ GET of a client without per-command timeout',
        value: Number(median(bareRatios).toFixed(2)),
        unit: '×',
        baseline: `range ${range(bareRatios, 2)}: the floor, node-redis with commandOptions.timeout 0`,
      },
      { name: 'redis: hit, memory store (baseline), median per call', value: Number(memUs.toFixed(2)), unit: 'µs' },
      { name: 'redis: hit, Redis store, median per call', value: Number(redisUs.toFixed(1)), unit: 'µs' },
      { name: 'redis: hit, Redis store + front tier, median per call', value: Number(frontUs.toFixed(2)), unit: 'µs' },
      { name: 'redis: hit latency, Redis store vs memory store', value: Number((redisUs / memUs).toFixed(1)), unit: '×', baseline: base },
      { name: 'redis: hit latency, Redis + front tier vs memory store', value: Number((frontUs / memUs).toFixed(2)), unit: '×', baseline: base },
      {
        name: 'redis: hit latency, Redis store vs Redis + front tier',
        value: Number((redisUs / frontUs).toFixed(1)),
        unit: '×',
        baseline: `front tier ${frontUs.toFixed(2)} µs`,
      },
      { name: 'redis: front-tier share of hits (after warm-up)', value: Number((frontHitShare * 100).toFixed(1)), unit: '%' },
      {
        name: 'redis: write (invalidate), Redis store vs memory store',
        value: Number((redisWriteUs / memWriteUs).toFixed(1)),
        unit: '×',
        baseline: `${wbase}; Redis ${redisWriteUs.toFixed(1)} µs`,
      },
      {
        name: 'redis: write (invalidate) with one front tier acking vs without',
        value: Number((frontWriteUs / redisWriteUs).toFixed(2)),
        unit: '×',
        baseline: `without ${redisWriteUs.toFixed(1)} µs; with ${frontWriteUs.toFixed(1)} µs`,
      },
    ];
  } finally {
    for (const s of stores) await s.close?.();
    await server.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await bench()) console.log(`${row.name}: ${row.value}${row.unit ? ` ${row.unit}` : ''}${row.baseline ? ` (${row.baseline})` : ''}`);
}
