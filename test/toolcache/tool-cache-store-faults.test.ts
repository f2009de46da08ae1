/** ToolCache, a failing store: calls pass through, and a failed invalidation never lets a stale value out. */
import { describe, expect, it } from 'vitest';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { StoredEntry, ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { counting, opts, registerCodingTools } from './helpers.js';

/** Wraps a store and makes the chosen methods throw while `failing` is on. */
class FlakyStore implements ToolCacheStore {
  failing = true;
  constructor(
    readonly inner: MemoryToolCacheStore,
    readonly methods: ReadonlyArray<keyof ToolCacheStore>,
  ) {}
  #gate(m: keyof ToolCacheStore): void {
    if (this.failing && this.methods.includes(m)) throw new Error(`store ${m} unreachable`);
  }
  async epoch() {
    this.#gate('epoch');
    return this.inner.epoch();
  }
  async get(k: string) {
    this.#gate('get');
    return this.inner.get(k);
  }
  async insertIfEpoch(e: StoredEntry, ep: number) {
    this.#gate('insertIfEpoch');
    return this.inner.insertIfEpoch(e, ep);
  }
  async invalidate(t: readonly string[]) {
    this.#gate('invalidate');
    return this.inner.invalidate(t);
  }
  async delete(k: string) {
    this.#gate('delete');
    return this.inner.delete(k);
  }
}

describe('ToolCache with a failing store', () => {
  it('passes every call through to the tool when every store method throws, and counts the errors', async () => {
    const cache = new ToolCache({ store: new FlakyStore(new MemoryToolCacheStore(), ['epoch', 'get', 'insertIfEpoch', 'invalidate', 'delete']) });
    registerCodingTools(cache);
    const read = counting((n: number) => `v${n}`);
    const r1 = await cache.call('Read', { path: 'a' }, read, opts('1'));
    const r2 = await cache.call('Read', { path: 'a' }, read, opts('2'));
    expect([r1.content, r2.content]).toEqual(['v1', 'v2']);
    expect(r2.cache.type).toBe('bypass');
    const w = await cache.call('Edit', { path: 'a' }, async () => 'ok', opts('3'));
    expect(w).toMatchObject({ content: 'ok', cache: { type: 'write', ok: true } });
    expect(cache.stats().storeErrors).toBeGreaterThanOrEqual(3);
  });

  it('still runs the tool when only the insert fails, and does not cache', async () => {
    const cache = new ToolCache({ store: new FlakyStore(new MemoryToolCacheStore(), ['insertIfEpoch']) });
    registerCodingTools(cache);
    const read = counting('x');
    const r = await cache.call('Read', { path: 'a' }, read, opts('1'));
    expect(r.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'store_error' });
    await cache.call('Read', { path: 'a' }, read, opts('2'));
    expect(read.runs).toBe(2);
  });

  it('never serves a stale value after a write whose invalidation failed: reads bypass until it is retried successfully', async () => {
    const inner = new MemoryToolCacheStore();
    const store = new FlakyStore(inner, ['invalidate']);
    store.failing = false;
    const cache = new ToolCache({ store });
    registerCodingTools(cache);
    const files = new Map([['a', 'old']]);
    const read = async ({ path }: { path: string }) => files.get(path)!;
    await cache.call('Read', { path: 'a' }, read, opts('1'));
    expect((await cache.call('Read', { path: 'a' }, read, opts('2'))).cache.type).toBe('hit');

    store.failing = true;
    const w = await cache.call(
      'Edit',
      { path: 'a' },
      async () => {
        files.set('a', 'new');
        return 'ok';
      },
      opts('w'),
    );
    expect(w.content).toBe('ok'); // the write itself succeeded
    const during = await cache.call('Read', { path: 'a' }, read, opts('3'));
    expect(during).toMatchObject({ content: 'new', cache: { type: 'bypass', reason: 'degraded' } });
    expect(await inner.get(cache.keyOf('Read', { path: 'a' }, 's'))).toBeDefined(); // the stale entry is still there...

    store.failing = false;
    const after = await cache.call('Read', { path: 'a' }, read, opts('4'));
    expect(after).toMatchObject({ content: 'new', cache: { type: 'miss', inserted: true } }); // ...until the retry evicted it
    expect((await cache.call('Read', { path: 'a' }, read, opts('5'))).content).toBe('new\n[cached]');
  });
});
