/** ToolCache, writes: which entries a successful write evicts, and that a failed one evicts nothing. */
import { describe, expect, it } from 'vitest';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { counting, opts, registerCodingTools } from './helpers.js';

describe('ToolCache.call: writes', () => {
  async function primed() {
    const cache = new ToolCache();
    registerCodingTools(cache);
    cache.register('Checkout', { writes: ['file'] });
    cache.register('UserGet', { cacheable: true, ttl: { turns: 5 }, reads: ['user'], tags: (a: { id: number }) => [`user:${a.id}`] });
    for (const path of ['a.ts', 'b.ts']) await cache.call('Read', { path }, async () => path, opts(path));
    await cache.call('Glob', { pattern: '*' }, async () => 'a.ts b.ts', opts('g'));
    await cache.call('UserGet', { id: 42 }, async () => 'Ada', opts('u'));
    const cached = async () => {
      const out: string[] = [];
      for (const path of ['a.ts', 'b.ts']) if ((await cache.call('Read', { path }, async () => '', opts('?'))).cache.type === 'hit') out.push(path);
      if ((await cache.call('Glob', { pattern: '*' }, async () => '', opts('?'))).cache.type === 'hit') out.push('glob');
      if ((await cache.call('UserGet', { id: 42 }, async () => '', opts('?'))).cache.type === 'hit') out.push('user');
      return out;
    };
    return { cache, cached };
  }

  it('an entity write evicts that entity and whole-family readers, nothing else', async () => {
    const { cache, cached } = await primed();
    const r = await cache.call('Edit', { path: './a.ts' }, async () => 'ok', opts('w'));
    expect(r.cache.type === 'write' && [...r.cache.evicted].sort()).toEqual(
      [cache.keyOf('Read', { path: 'a.ts' }, 's'), cache.keyOf('Glob', { pattern: '*' }, 's')].sort(),
    );
    expect(await cached()).toEqual(['b.ts', 'user']);
  });

  it('a family-level write evicts every reader of the family', async () => {
    const { cache, cached } = await primed();
    await cache.call('Checkout', { ref: 'main' }, async () => 'ok', opts('w'));
    expect(await cached()).toEqual(['user']);
    expect(cache.stats().evictions.write).toBe(3);
  });

  it('a failed write (thrown or is_error) evicts what a success would, and moves the epoch: it may have written half-way', async () => {
    const { cache, cached } = await primed();
    const epoch = await cache.store.epoch();
    await expect(
      cache.call(
        'Edit',
        { path: 'a.ts' },
        async () => {
          throw new Error('permission denied');
        },
        opts('w1'),
      ),
    ).rejects.toThrow('permission denied');
    const r = await cache.call('Edit', { path: 'a.ts' }, async () => ({ content: 'old_string not found', isError: true }), opts('w2'));
    expect(r).toMatchObject({ isError: true, cache: { type: 'write', ok: false, evicted: [] } }); // the thrown one evicted them
    expect(await cache.store.epoch()).toBe(epoch + 2);
    expect(await cached()).toEqual(['b.ts', 'user']);
    expect(cache.stats().perTool.Edit).toMatchObject({ writes: 0, failedWrites: 2 });
  });

  it('fails a write before it runs when its extractor names an undeclared family', async () => {
    const cache = new ToolCache();
    cache.register('Sneaky', { writes: ['file'], tags: () => ['db:users'] });
    const run = counting('ok');
    await expect(cache.call('Sneaky', {}, run, opts('1'))).rejects.toThrow(/declares writes: \[file\]/);
    expect(run.runs).toBe(0);
  });
});
