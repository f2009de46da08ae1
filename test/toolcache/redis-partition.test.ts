/**
 * One replica cut off from Redis while the others still reach it (a partition: a dropped connection, a broken
 * route, a proxy restart), through a loopback TCP proxy in front of the shared redis-server that only replica A
 * connects through. Redis itself keeps running and keeps answering replica B.
 */

import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openStore, replica, until, useSharedRedis } from './redis-fixtures/helpers.js';
import { uniqueNamespace } from './redis-fixtures/server.js';

/** A TCP proxy to `target` that can be cut (every connection dropped, new ones refused) and healed. */
async function proxy(target: URL): Promise<{ url: string; cut(): void; heal(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let open = true;
  const server: Server = createServer((client) => {
    if (!open) {
      client.destroy();
      return;
    }
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut() {
      open = false;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    heal() {
      open = true;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const shared = useSharedRedis();
const opened = shared.opened;

describe('RedisToolCacheStore: a replica cut off from Redis in the middle of a write', () => {
  for (const [frontTier, overlap] of [
    [false, false],
    [true, false],
    [false, true],
    [true, true],
  ] as const) {
    it(`does not let another replica serve the entry the write made stale${frontTier ? ' (front tiers)' : ''}${overlap ? ', nor one a read overlapping the write stored' : ''}`, async () => {
      const p = await proxy(new URL(shared.url()));
      try {
        const ns = uniqueNamespace('partition');
        const options = { commandTimeoutMs: 300, maxReconnectDelayMs: 50, ackTimeoutMs: 400, ...(frontTier ? { frontTier: { leaseMs: 200 } } : {}) };
        const aStore = await openStore(p.url, ns, options);
        const bStore = await openStore(shared.url(), ns, options);
        opened.push(aStore, bStore);
        if (frontTier) expect(await until(() => aStore.store.frontTierLeased && bStore.store.frontTierLeased)).toBe(true);
        const files = new Map([['a', 'v1']]);
        const a = replica(aStore, files);
        const b = replica(bStore, files);
        await b.read('a');
        expect((await b.read('a')).cache.type).toBe('hit');

        // A's write starts while A reaches Redis; its connection drops while the tool runs, so its invalidation fails.
        // With `overlap`, B reads while A's tool runs, before it writes: B gets v1 (the write has not happened), which
        // must not stay cached for reads that start after the write returned.
        const w = await a.write('a', 'v2', async () => {
          p.cut();
          if (overlap) expect(String((await b.read('a')).content).replace(/\n\[cached\]$/, '')).toBe('v1');
        });
        expect(w).toMatchObject({ content: 'ok', cache: { type: 'write', ok: true } });
        expect(aStore.store.stats.pendingInvalidationTags).toBeGreaterThan(0);

        // The write returned: B, which still reaches Redis, must not answer with v1.
        for (let i = 0; i < 3; i++) {
          const x = await b.read('a');
          expect(String(x.content).replace(/\n\[cached\]$/, '')).toBe('v2');
        }
        // A bypasses its cache while its invalidation is pending: the truth too.
        expect((await a.read('a')).content).toBe('v2');

        // Healed: A's invalidation gets through, and caching resumes on both with the truth.
        p.heal();
        expect(await until(() => aStore.store.stats.pendingInvalidationTags === 0)).toBe(true);
        expect(
          await until(async () => {
            const x = await b.read('a');
            expect(String(x.content).replace(/\n\[cached\]$/, '')).toBe('v2');
            return x.cache.type === 'hit';
          }),
        ).toBe(true);
      } finally {
        p.cut();
        await p.close();
      }
    }, 30_000);
  }
});

describe('ToolCache on Redis: a write that fails', () => {
  it('lifts its mark: its tags are cached again at once (thrown, and is_error)', async () => {
    const ts = await openStore(shared.url(), uniqueNamespace('failed-write'));
    opened.push(ts);
    const files = new Map([['a', 'v1']]);
    const r = replica(ts, files);
    await r.read('a');
    const epoch = await ts.store.epoch();
    await expect(
      r.cache.call(
        'Edit',
        { path: 'a' },
        () => {
          throw new Error('disk full');
        },
        { scope: 's', callId: 'w-throw' },
      ),
    ).rejects.toThrow('disk full');
    const e = await r.cache.call('Edit', { path: 'a' }, () => ({ content: 'denied', isError: true }), { scope: 's', callId: 'w-err' });
    // The entry left, and the epoch moved, when each write started (its mark), and again when it ended: a failed
    // write may have written half-way, so it invalidates as a success does (failed-writes.test.ts).
    expect(e.cache).toMatchObject({ type: 'write', ok: false });
    expect(await ts.store.epoch()).toBe(epoch + 4);
    expect((await r.read('a')).cache).toMatchObject({ type: 'miss', inserted: true });
    expect((await r.read('a')).cache.type).toBe('hit');
  });
});

describe('RedisToolCacheStore: a read in flight on another replica when the writer loses Redis', () => {
  it('is not handed to an identical read that starts after the write returned (singleflight joins by epoch)', async () => {
    const p = await proxy(new URL(shared.url()));
    try {
      const ns = uniqueNamespace('partition-join');
      const options = { commandTimeoutMs: 300, maxReconnectDelayMs: 50, ackTimeoutMs: 400 };
      const aStore = await openStore(p.url, ns, options);
      const bStore = await openStore(shared.url(), ns, options);
      opened.push(aStore, bStore);
      const files = new Map([['a', 'v1']]);
      const a = replica(aStore, files);
      const b = replica(bStore, files);
      // B's first read starts before the write and reads v1 at once, but answers only later.
      let answer!: () => void;
      const answered = new Promise<void>((r) => (answer = r));
      let invoked!: () => void;
      const running = new Promise<void>((r) => (invoked = r));
      const first = b.cache.call(
        'Read',
        { path: 'a' },
        async () => {
          const seen = files.get('a');
          invoked();
          await answered;
          return seen ?? '';
        },
        { scope: 's', callId: 'first' },
      );
      await running;
      // A writes; its connection drops while the tool runs, so its invalidation fails (its mark reached Redis).
      await a.write('a', 'v2', async () => p.cut());
      expect(aStore.store.stats.pendingInvalidationTags).toBeGreaterThan(0);
      // The write returned: an identical read on B starts now and must not be handed the first read's v1. It is let
      // run until it read the epoch (where it joins the first read's run or starts its own), then the first answers.
      const epochOf = bStore.store.epoch.bind(bStore.store);
      let epochsRead = 0;
      bStore.store.epoch = async () => {
        const e = await epochOf();
        epochsRead += 1;
        return e;
      };
      const second = b.read('a');
      expect(await until(() => epochsRead > 0)).toBe(true);
      await new Promise((r) => setImmediate(r));
      answer();
      expect((await first).content).toBe('v1'); // it overlapped the write: either answer is correct
      expect(String((await second).content).replace(/\n\[cached\]$/, '')).toBe('v2');
    } finally {
      p.cut();
      await p.close();
    }
  }, 30_000);
});
