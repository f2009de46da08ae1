/**
 * Several agent replicas (child processes, each with a real ToolCache on the
 * Redis store) sharing one redis-server: singleflight across processes, a write
 * in one replica evicting another's hit before the write returns (also through
 * the front tier), and the cross-process epoch race.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Replica, spawnReplica } from './redis-fixtures/replicas.js';
import { until } from './redis-fixtures/helpers.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';
import type { WorkerInit } from './redis-fixtures/worker.js';

let redis: { readonly url: string; release(): Promise<void> };
const replicas: Replica[] = [];

async function fleet(n: number, init: Omit<WorkerInit, 'url'>): Promise<Replica[]> {
  const spawned = await Promise.all(Array.from({ length: n }, () => spawnReplica({ url: redis.url, ...init })));
  replicas.push(...spawned);
  // A front tier serves nothing until its first heartbeat came back; start the scenario once they all can.
  if (init.frontTier) for (const r of spawned) expect(await until(() => r.leased())).toBe(true);
  return spawned;
}

beforeAll(async () => {
  redis = await sharedRedis();
});

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await redis.release();
}, 30_000);

describe('RedisToolCacheStore across processes', () => {
  it('runs the tool once for 50 identical concurrent calls from 5 processes, and all 50 get its result', async () => {
    const ns = uniqueNamespace('sf');
    const five = await fleet(5, { namespace: ns, frontTier: false, toolDelayMs: 400, flightTimeoutMs: 10_000 });
    await five[0]!.write('src/main.ts', 'fn main() {}');
    // All replicas are up; the 5 × 10 calls start within a few ms of each other.
    const replies = await Promise.all(five.map((r) => r.read('src/main.ts', 10)));
    const runs = (await Promise.all(five.map((r) => r.stats()))).reduce((sum, s) => sum + s.runs, 0);
    expect(runs).toBe(1);
    const contents = replies.flatMap((r) => r.contents);
    expect(contents).toHaveLength(50);
    expect(new Set(contents)).toEqual(new Set(['fn main() {}']));
    // One miss (the runner); every other call shared that run, in-process or through Redis.
    expect(replies.flatMap((r) => r.statuses).filter((s) => s === 'miss')).toHaveLength(1);
  }, 60_000);

  it('lets waiters run the tool themselves when the process holding the flight dies', async () => {
    const ns = uniqueNamespace('owner-dies');
    const [owner, waiter] = await fleet(2, { namespace: ns, frontTier: false, toolDelayMs: 0, flightTimeoutMs: 1000 });
    await waiter!.write('big.txt', 'content');
    // The owner claims the flight and is inside the tool when it is killed.
    void owner!.read('big.txt', 1, { gate: true }).catch(() => undefined);
    expect(await owner!.toolRead('big.txt')).toBe('content');
    const waiting = waiter!.read('big.txt', 3);
    owner!.signal('SIGKILL');
    // The claim expires (flightTimeoutMs); the waiter's process runs the tool once for its 3 calls.
    const r = await waiting;
    expect(r.contents).toEqual(['content', 'content', 'content']);
    const s = await waiter!.stats();
    expect(s.runs).toBe(1);
    expect(s.store.flightWaits).toBe(1);
    expect(s.store.flightWaitGaveUp).toBe(1);
  }, 60_000);

  for (const frontTier of [false, true]) {
    it(`evicts another process's cached read before the write returns${frontTier ? ' (front tier)' : ''}`, async () => {
      const ns = uniqueNamespace(frontTier ? 'evict-front' : 'evict');
      // A lease and an ack wait far above any stall of a loaded machine: the hits come from B's front tier and every
      // eviction from an ack, however late a heartbeat is (this test is about acks, not lapses).
      const [a, b] = await fleet(2, { namespace: ns, frontTier, toolDelayMs: 0, flightTimeoutMs: 5000, leaseMs: 10_000, ackTimeoutMs: 20_000 });
      for (let round = 0; round < 15; round += 1) {
        const v = `version ${round}`;
        await a!.write('a.txt', v);
        expect((await b!.read('a.txt')).contents).toEqual([v]);
        const hit = await b!.read('a.txt');
        expect(hit.statuses).toEqual(['hit']);
        // The next request to B is sent only after A's write resolved: it must not see `v`.
        await a!.write('a.txt', `${v} edited`);
        const after = await b!.read('a.txt');
        expect(after.contents).toEqual([`${v} edited`]);
        expect(after.statuses).toEqual(['miss']);
      }
      if (frontTier) {
        const s = (await b!.stats()).store;
        expect(s.frontHits).toBeGreaterThanOrEqual(15);
        expect(s.frontEvictions).toBeGreaterThanOrEqual(15);
        expect((await a!.stats()).store.ackTimeouts).toBe(0);
      }
    }, 60_000);
  }

  it('never inserts the result of a read that started before another process wrote (epoch race)', async () => {
    const ns = uniqueNamespace('race');
    const [reader, writer, other] = await fleet(3, { namespace: ns, frontTier: true, toolDelayMs: 0, flightTimeoutMs: 5000 });
    for (let round = 0; round < 5; round += 1) {
      const path = `f${round}.txt`;
      await writer!.write(path, 'old');
      // The reader misses at epoch e and reads "old" from the file system …
      const reading = reader!.read(path, 1, { gate: true });
      expect(await reader!.toolRead(path)).toBe('old');
      // … another process writes and its invalidation completes (epoch e+1) …
      await writer!.write(path, 'new');
      // … and only then does the read finish and try to insert.
      reader!.proceed(path);
      const r = await reading;
      expect(r.contents).toEqual(['old']); // its own caller gets what it read
      expect(r.notInserted).toEqual(['stale_epoch']); // but it is not cached
      for (const rep of [reader!, other!, writer!]) expect((await rep.read(path)).contents).toEqual(['new']);
    }
  }, 60_000);

  it('a front tier that cannot acknowledge (process frozen) serves nothing stale once thawed', async () => {
    const ns = uniqueNamespace('frozen');
    const [a, b] = await fleet(2, {
      namespace: ns,
      frontTier: true,
      toolDelayMs: 0,
      flightTimeoutMs: 5000,
      leaseMs: 200,
      ackTimeoutMs: 400,
    });
    await a!.write('x', 'v1');
    await b!.read('x');
    expect((await b!.read('x')).statuses).toEqual(['hit']);
    // A 200 ms lease can lapse for a moment on a loaded machine (a late heartbeat): wait until B holds it.
    expect(await until(() => b!.leased())).toBe(true);
    // The write of v1 may itself have waited out a late ack: count only what the frozen B causes.
    const before = Number((await a!.stats()).store.ackTimeouts);
    b!.signal('SIGSTOP');
    try {
      // B cannot ack: A's write waits ackTimeoutMs (> B's lease), then returns.
      await a!.write('x', 'v2');
      expect((await a!.stats()).store.ackTimeouts).toBe(before + 1);
    } finally {
      b!.signal('SIGCONT');
    }
    expect((await b!.read('x')).contents).toEqual(['v2']);
  }, 60_000);
});
