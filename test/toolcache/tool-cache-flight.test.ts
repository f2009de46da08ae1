/** ToolCache, a distributed flight: two replicas sharing one store run a call once. */
import { describe, expect, it } from 'vitest';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import type { FlightCoordinator, StoredEntry, ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { opts, registerCodingTools } from './helpers.js';

/** Distributed singleflight over one shared memory store: what two replicas sharing Redis see. */
class SharedFlight implements FlightCoordinator {
  readonly #owners = new Map<string, string>();
  readonly #waiters = new Map<string, Array<() => void>>();
  acquired = 0;
  constructor(readonly store: ToolCacheStore) {}
  async acquire(key: string, token: string): Promise<boolean> {
    if (this.#owners.has(key)) return false;
    this.#owners.set(key, token);
    this.acquired++;
    return true;
  }
  async release(key: string, token: string): Promise<void> {
    if (this.#owners.get(key) !== token) return;
    this.#owners.delete(key);
    for (const w of this.#waiters.get(key) ?? []) w();
    this.#waiters.delete(key);
  }
  async wait(key: string, timeoutMs: number): Promise<StoredEntry | undefined> {
    if (this.#owners.has(key)) {
      await new Promise<void>((resolve) => {
        const list = this.#waiters.get(key) ?? [];
        list.push(resolve);
        this.#waiters.set(key, list);
        setTimeout(resolve, timeoutMs).unref();
      });
    }
    return this.store.get(key);
  }
}

class SharedStore extends MemoryToolCacheStore {
  readonly flight: SharedFlight = new SharedFlight(this);
}

describe('ToolCache with a distributed flight (two replicas, one store)', () => {
  it('runs a call once across replicas: the second replica waits and receives the first one’s result', async () => {
    const store = new SharedStore();
    // Two replicas serving one conversation: one session, so they share turn-TTL entries.
    const [a, b] = [new ToolCache({ store, session: 'conv-1' }), new ToolCache({ store, session: 'conv-1' })];
    registerCodingTools(a);
    registerCodingTools(b);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    const read = async () => {
      runs++;
      await gate;
      return 'content';
    };
    const ra = a.call('Read', { path: 'x' }, read, opts('a1'));
    await new Promise((r) => setTimeout(r, 0));
    const rb = b.call('Read', { path: 'x' }, read, opts('b1'));
    await new Promise((r) => setTimeout(r, 0));
    release();
    expect((await ra).cache.type).toBe('miss');
    // Told, like a hit, that it did not run the tool.
    expect(await rb).toMatchObject({ callId: 'b1', content: 'content\n[cached]', cache: { type: 'shared' } });
    expect(runs).toBe(1);
    expect(store.flight.acquired).toBe(1);
  });

  it('runs the call itself when the other replica’s result was refused by an invalidation', async () => {
    const store = new SharedStore();
    // Two replicas serving one conversation: one session, so they share turn-TTL entries.
    const [a, b] = [new ToolCache({ store, session: 'conv-1' }), new ToolCache({ store, session: 'conv-1' })];
    registerCodingTools(a);
    registerCodingTools(b);
    const files = new Map([['x', 'old']]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = async ({ path }: { path: string }) => {
      const v = files.get(path)!;
      await gate;
      return v;
    };
    const ra = a.call('Read', { path: 'x' }, slow, opts('a1'));
    await new Promise((r) => setTimeout(r, 0));
    await b.call(
      'Edit',
      { path: 'x' },
      async () => {
        files.set('x', 'new');
        return 'ok';
      },
      opts('bw'),
    );
    const rb = b.call('Read', { path: 'x' }, async ({ path }: { path: string }) => files.get(path)!, opts('b1'));
    await new Promise((r) => setTimeout(r, 0));
    release();
    expect(await ra).toMatchObject({ content: 'old', cache: { notInserted: 'stale_epoch' } });
    expect(await rb).toMatchObject({ content: 'new', cache: { type: 'miss', inserted: true } });
  });
});
