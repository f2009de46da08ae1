/**
 * A result too large for the server (`proto-max-bulk-len`, set low on a private redis-server): Redis refuses the
 * insert and drops the connection that sent it. The call still answers with the tool's content, nothing is cached,
 * a write in flight on that connection still keeps other replicas from the stale entry, and caching resumes.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, rawClient, replica, type TestStore, until } from './redis-fixtures/helpers.js';
import { type RedisServerHandle, startRedisServer, uniqueNamespace } from './redis-fixtures/server.js';

let server: RedisServerHandle;
const opened: TestStore[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  const raw = await rawClient(server.url);
  await raw.configSet('proto-max-bulk-len', String(1024 * 1024)); // the least Redis accepts: 1 MiB
  await raw.quit();
});

afterAll(async () => {
  for (const s of opened) await s.store.close();
  await server.destroy();
});

const text = (c: unknown) => String(c).replace(/\n\[cached\]$/, '');

describe('RedisToolCacheStore: a result too large for the server', () => {
  it('is answered, not cached, and a write racing it on the same connection leaves no stale entry for another replica', async () => {
    const ns = uniqueNamespace('large');
    const options = { commandTimeoutMs: 1000, maxReconnectDelayMs: 50, ackTimeoutMs: 400 };
    const aStore = await openStore(server.url, ns, options);
    const bStore = await openStore(server.url, ns, options);
    opened.push(aStore, bStore);
    const files = new Map([
      ['a', 'v1'],
      ['big', 'x'.repeat(2 * 1024 * 1024)],
    ]);
    const a = replica(aStore, files);
    const b = replica(bStore, files);
    await b.read('a');
    expect((await b.read('a')).cache.type).toBe('hit');

    // A's big read and A's write of `a` finish together: the insert's oversized command and the write's
    // invalidation share A's command connection, which Redis drops on the oversized one.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered = 0;
    const enter = () => {
      if (++entered === 2) release(); // both tools are running: they finish together
      return gate;
    };
    const big = a.cache.call(
      'Read',
      { path: 'big' },
      async () => {
        await enter();
        return files.get('big')!;
      },
      { scope: 's', callId: 'big' },
    );
    const write = a.cache.call(
      'Edit',
      { path: 'a' },
      async () => {
        await enter();
        // Finishes just after the big read, so its invalidation follows the oversized insert on the connection.
        await new Promise((r) => setImmediate(r));
        files.set('a', 'v2');
        return 'ok';
      },
      { scope: 's', callId: 'w' },
    );
    const [bigResult, writeResult] = await Promise.all([big, write]);
    expect(bigResult.content).toHaveLength(2 * 1024 * 1024);
    expect(bigResult.cache).toMatchObject({ type: 'miss', inserted: false });
    expect(writeResult.cache).toMatchObject({ type: 'write', ok: true });
    // Its invalidation went down with the connection (counted), so only the write's mark guards the other replica.
    expect(a.cache.stats().perTool.Edit?.storeErrors).toBe(1);

    // The write returned: neither replica answers v1, whatever became of its invalidation.
    for (const r of [a, b]) expect(text((await r.read('a')).content)).toBe('v2');
    // Caching resumes once A's connection is back and anything pending got through.
    expect(await until(() => aStore.store.stats.connected && aStore.store.stats.pendingInvalidationTags === 0)).toBe(true);
    expect(
      await until(async () => {
        const x = await a.read('a');
        expect(text(x.content)).toBe('v2');
        return x.cache.type === 'hit';
      }),
    ).toBe(true);
    expect((await a.read('big')).cache.type).not.toBe('hit');
  }, 30_000);
});
