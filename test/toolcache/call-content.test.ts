/**
 * `ToolCache.call` (the direct door, without runToolUses) with a tool that returns what no tool_result can hold and no
 * hit can replay (a number, null, `{}`, `{ content: 7 }`): it was reported `inserted: true`, yet never hit (every store
 * reads such an entry back as damaged and drops it; Redis warned `decode_failed` on every lookup). Now the call is
 * refused with an InvalidOptionError naming `run`, nothing is stored, and a write's invalidation still happens (the
 * write ran: under-evicting is never safe). A tool that returns nothing (undefined) is not an error: not inserted,
 * with the reason `no_content`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { MemoryToolCacheStore } from '../../src/toolcache/memory-store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { createRedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import type { ToolRunner } from '../../src/toolcache/types.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';

let redis: { readonly url: string; release(): Promise<void> };
beforeAll(async () => {
  redis = await sharedRedis();
});
afterAll(async () => {
  await redis.release();
});

const fileTag = (a: { path: string }) => [`file:${a.path}`];
const cacheOn = (store = new MemoryToolCacheStore()) =>
  new ToolCache({ store })
    .register<{ path: string }>('Read', { cacheable: true, ttl: { turns: 5 }, tags: fileTag })
    .register<{ path: string }>('Edit', { writes: ['file'], tags: fileTag });
const returning = (v: unknown) => (async () => v) as unknown as ToolRunner<{ path: string }>;

async function rejection(p: Promise<unknown>): Promise<InvalidOptionError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidOptionError);
  return err as InvalidOptionError;
}

describe('ToolCache.call: content no tool_result can hold', () => {
  it.each<[string, unknown, string]>([
    ['a number', 42, '42'],
    ['null', null, 'null'],
    ['an object without content', {}, '{}'],
    ['a run result whose content is a number', { content: 7 }, '7'],
  ])('a read tool returning %s is refused, and nothing is stored', async (_, value, shown) => {
    const store = new MemoryToolCacheStore();
    const cache = cacheOn(store);
    const err = await rejection(cache.call('Read', { path: 'a.ts' }, returning(value), { scope: '', callId: 'toolu_1' }));
    expect(err.option).toBe('run');
    expect(err.message).toBe(`run: Read: returned ${shown} for call toolu_1: a tool returns a string, an array of content blocks, or { content, isError }`);
    expect(store.size).toBe(0);
  });

  it('a write tool returning a number is refused after its invalidation: the cached read it makes stale is gone', async () => {
    const cache = cacheOn();
    await cache.call('Read', { path: 'a.ts' }, returning('old text'), { scope: '', callId: 'toolu_1' });
    await rejection(cache.call('Edit', { path: 'a.ts' }, returning(1), { scope: '', callId: 'toolu_2' }));
    const again = await cache.call('Read', { path: 'a.ts' }, returning('new text'), { scope: '', callId: 'toolu_3' });
    expect(again.cache.type).toBe('miss');
    expect(again.content).toBe('new text');
  });

  it('a read tool returning nothing resolves, not inserted (no_content), where it said inserted and never hit', async () => {
    const cache = cacheOn();
    const first = await cache.call('Read', { path: 'a.ts' }, returning(undefined), { scope: '', callId: 'toolu_1' });
    expect(first.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'no_content' });
    const second = await cache.call('Read', { path: 'a.ts' }, returning(undefined), { scope: '', callId: 'toolu_2' });
    expect(second.cache).toEqual({ type: 'miss', expired: false, inserted: false, notInserted: 'no_content' });
  });

  it('on Redis: refused, nothing stored, and no decode_failed warning on the next lookup', async () => {
    const warnings: string[] = [];
    const store = await createRedisToolCacheStore({ url: redis.url, namespace: uniqueNamespace('call-content'), onWarning: (w) => warnings.push(w.code) });
    try {
      const cache = cacheOn(store as never);
      await rejection(cache.call('Read', { path: 'a.ts' }, returning({}), { scope: '', callId: 'toolu_1' }));
      const next = await cache.call('Read', { path: 'a.ts' }, returning('text'), { scope: '', callId: 'toolu_2' });
      expect(next.cache).toEqual({ type: 'miss', expired: false, inserted: true });
      expect(warnings).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('runToolUses still throws the handler error to the caller, naming handlers.<tool>', async () => {
    const cache = cacheOn();
    const blocks = [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.ts' } }];
    const err = await rejection(cache.runToolUses(blocks, { Read: returning(42) as ToolRunner<never> }, { scope: '' }));
    expect(err.message).toBe('handlers.Read: returned 42 for call toolu_1: a handler returns a string, an array of content blocks, or { content, isError }');
  });
});
