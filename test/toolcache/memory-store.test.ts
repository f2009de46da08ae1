import { describe, expect, it } from 'vitest';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import { describeToolCacheStore, makeEntry } from './store-contract.js';

describeToolCacheStore('memory', async () => new MemoryToolCacheStore());
describeToolCacheStore('memory (LRU bound 1000)', async () => new MemoryToolCacheStore({ maxEntries: 1000 }));

describe('MemoryToolCacheStore', () => {
  it('drops the least recently used entry beyond maxEntries and reports it as a capacity eviction', async () => {
    const s = new MemoryToolCacheStore({ maxEntries: 2 });
    const dropped: string[] = [];
    s.onEvict((key, reason) => dropped.push(`${key}:${reason}`));
    const e = await s.epoch();
    await s.insertIfEpoch(makeEntry('a', ['file:a']), e);
    await s.insertIfEpoch(makeEntry('b', ['file:b']), e);
    await s.get('a'); // a is now more recent than b
    await s.insertIfEpoch(makeEntry('c', ['file:c']), e);
    expect(dropped).toEqual(['b:capacity']);
    expect(await s.get('b')).toBeUndefined();
    expect(await s.get('a')).toBeDefined();
    expect(s.size).toBe(2);
    // The dropped entry left the tag index too.
    expect((await s.invalidate(['file:b'])).evicted).toEqual([]);
  });

  it('gives a used entry a second chance when it reaches the old end, and evicts it once unused for a whole round', async () => {
    const s = new MemoryToolCacheStore({ maxEntries: 3 });
    const dropped: string[] = [];
    s.onEvict((key) => dropped.push(key));
    const e = await s.epoch();
    for (const k of ['a', 'b', 'c']) await s.insertIfEpoch(makeEntry(k, []), e);
    await s.get('a');
    await s.insertIfEpoch(makeEntry('d', []), e); // a used: moves to the young end (behind c); b goes
    expect(dropped).toEqual(['b']);
    await s.insertIfEpoch(makeEntry('e', []), e);
    await s.insertIfEpoch(makeEntry('f', []), e); // a not used since its second chance: it goes after c
    expect(dropped).toEqual(['b', 'c', 'a']);
    await s.insertIfEpoch(makeEntry('g', []), e);
    expect(dropped).toEqual(['b', 'c', 'a', 'd']);
    // All used: one pass unmarks them, then the oldest goes.
    for (const k of ['e', 'f', 'g']) await s.get(k);
    await s.insertIfEpoch(makeEntry('h', []), e);
    expect(dropped.at(-1)).toBe('e');
    expect(s.size).toBe(3);
  });

  it('keeps a private frozen copy, so mutating the inserted object or a returned entry cannot change the cache', async () => {
    const s = new MemoryToolCacheStore();
    const parts = [{ type: 'text', text: 'original' }];
    const entry = makeEntry('k', [], { content: parts });
    await s.insertIfEpoch(entry, await s.epoch());
    parts[0]!.text = 'mutated';
    const got = await s.get('k');
    expect(got?.content).toEqual([{ type: 'text', text: 'original' }]);
    expect(Object.isFrozen(got)).toBe(true);
    expect(() => {
      (got!.content as unknown as Array<{ text: string }>)[0]!.text = 'x';
    }).toThrow(TypeError);
  });

  it('rejects a maxEntries that is not a positive integer, naming the option', () => {
    expect(() => new MemoryToolCacheStore({ maxEntries: 0 })).toThrowErrorMatchingInlineSnapshot(
      `[InvalidOptionError: maxEntries: must be a positive integer, got 0]`,
    );
  });
});
