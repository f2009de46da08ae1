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

describe('ToolCache with a failing store: a retry that overlaps a new failure', () => {
  it('keeps a tag pending when a later write fails to invalidate it while an earlier retry of that tag is still in flight', async () => {
    // A retry of pending tags that the store applied *before* a later write ran must not clear that write's failure.
    const inner = new MemoryToolCacheStore();
    let failNext = 0;
    let holdNext: Promise<void> | undefined;
    const store: ToolCacheStore = {
      epoch: () => inner.epoch(),
      get: (k) => inner.get(k),
      insertIfEpoch: (e, ep) => inner.insertIfEpoch(e, ep),
      delete: (k) => inner.delete(k),
      async invalidate(tags) {
        if (failNext > 0) {
          failNext -= 1;
          throw new Error('store unreachable');
        }
        const out = await inner.invalidate(tags);
        const hold = holdNext;
        holdNext = undefined;
        if (hold !== undefined) await hold; // applied, but its answer is slow to come back (e.g. waiting for acks)
        return out;
      },
    };
    const cache = new ToolCache({ store });
    registerCodingTools(cache);
    const files = new Map([
      ['a', 'v0'],
      ['b', 'b0'],
    ]);
    const read = async ({ path }: { path: string }) => files.get(path)!;
    const edit = (text: string) => async () => {
      files.set('a', text);
      return 'ok';
    };

    failNext = 1;
    await cache.call('Edit', { path: 'a' }, edit('v1'), opts('w1')); // its invalidation fails: file:a pending

    let releaseRetry!: () => void;
    holdNext = new Promise<void>((r) => (releaseRetry = r));
    const other = cache.call('Read', { path: 'b' }, read, opts('r')); // retries file:a: applied, answer held
    await new Promise((r) => setTimeout(r, 0));

    let releaseSlow!: () => void;
    const slowGate = new Promise<void>((r) => (releaseSlow = r));
    let slowRead!: Promise<unknown>;
    const readStarted = new Promise<void>((started) => {
      slowRead = cache.call(
        'Read',
        { path: 'a' },
        async ({ path }: { path: string }) => {
          const content = files.get(path)!; // v1, read before the second edit
          started();
          await slowGate;
          return content;
        },
        opts('slow'),
      ); // retries file:a itself (succeeds), misses, reads v1 and waits
    });
    await readStarted;

    failNext = 1;
    const w2 = await cache.call('Edit', { path: 'a' }, edit('v2'), opts('w2')); // v2 written; its invalidation fails: file:a pending again
    expect(w2.content).toBe('ok');

    releaseRetry(); // the first retry's answer comes back now
    await other;
    releaseSlow(); // the slow read inserts v1 (no invalidation reached the store since it read the epoch)
    await slowRead;

    const after = await cache.call('Read', { path: 'a' }, read, opts('after')); // starts after the second edit completed
    expect(String(after.content)).toMatch(/^v2/);
  });
});
