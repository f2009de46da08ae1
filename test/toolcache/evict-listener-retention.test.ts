/**
 * A store shared by many caches (one ToolCache per session on one memory or Redis store, as docs/tool-cache.md
 * "Sessions" describes) must not keep each cache alive through the eviction listener it subscribes
 * (ToolCacheStore.onEvict): a server that makes a cache per conversation grew without bound.
 */
import { describe, expect, it } from 'vitest';
import { collect } from '../helpers/gc.js';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';

describe('ToolCache on a shared store', () => {
  it('a cache no longer referenced is collectable; the live one still counts its evictions', async () => {
    const store = new MemoryToolCacheStore({ maxEntries: 2 });
    const gone: WeakRef<ToolCache>[] = [];
    for (let i = 0; i < 50; i++) gone.push(new WeakRef(new ToolCache({ store, session: `s${i}` })));
    const live = new ToolCache({ store, session: 'live' });
    live.register('Read', { cacheable: true, ttl: { turns: 5 } });
    for (let k = 0; k < 3; k++) {
      collect();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect(gone.filter((r) => r.deref() !== undefined)).toHaveLength(0);
    // Three distinct reads into a store of two: one LRU eviction, counted by the cache that is still there.
    for (const path of ['a', 'b', 'c']) await live.call('Read', { path }, () => `content of ${path}`, { scope: '', callId: `toolu_${path}` });
    expect(live.stats().evictions.capacity).toBe(1);
  });
});
