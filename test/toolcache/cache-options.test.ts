import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import type { ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache, type ToolCacheOptions } from '../../src/toolcache/tool-cache.js';
import { createRedisToolCacheStore } from '../../src/toolcache/stores/redis.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';

// Options that can never work were taken, and every call then passed through uncached (a store that is not one
// fails every method: `bypass`/`store_error`, silently) or failed later with a bare TypeError from inside a call.
let redis: { readonly url: string; release(): Promise<void> };

beforeAll(async () => {
  redis = await sharedRedis();
});

afterAll(async () => {
  await redis.release();
});

function refused(options: ToolCacheOptions, option: string, says: RegExp): void {
  let error: unknown;
  try {
    new ToolCache(options);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InvalidOptionError);
  expect((error as InvalidOptionError).message).toMatch(new RegExp(`^${option}: `));
  expect((error as InvalidOptionError).message).toMatch(says);
}

describe('new ToolCache: options that can never work', () => {
  it('refuses a Redis store that was not awaited, naming store and saying to await it', async () => {
    const pending = createRedisToolCacheStore({ url: redis.url, namespace: uniqueNamespace('unawaited') });
    try {
      refused({ store: pending as unknown as ToolCacheStore }, 'store', /await createRedisToolCacheStore/);
    } finally {
      await (await pending).close();
    }
  });

  it.each([
    ['{}', {}],
    ['a string', 'redis://127.0.0.1:6379'],
  ])('refuses a store that is %s', (_, store) => {
    refused({ store: store as unknown as ToolCacheStore }, 'store', /epoch\(\), get\(\), insertIfEpoch\(\), invalidate\(\) and delete\(\)/);
  });

  it('refuses a clock or marker of the wrong type', () => {
    refused({ now: 5 as unknown as () => number }, 'now', /function/);
    refused({ marker: 5 as unknown as string }, 'marker', /string/);
  });

  it('takes an awaited Redis store and caches through it (control)', async () => {
    const store = await createRedisToolCacheStore({ url: redis.url, namespace: uniqueNamespace('awaited') });
    try {
      const cache = new ToolCache({ store });
      cache.register('Read', { cacheable: true, ttl: { seconds: 60 } });
      await cache.call('Read', { path: 'a.ts' }, () => 'text', { scope: '', callId: 'toolu_1' });
      const again = await cache.call('Read', { path: 'a.ts' }, () => 'other', { scope: '', callId: 'toolu_2' });
      expect(again.cache.type).toBe('hit');
      expect(again.content).toBe('text\n[cached]');
    } finally {
      await store.close();
    }
  });
});

describe('ToolCache.call: a tool that is not a function', () => {
  // It threw a bare TypeError "run is not a function" on a miss, naming neither the tool nor the argument.
  it.each([
    ['a string', 'readFile'],
    ['undefined', undefined],
    ['an object', { run: () => 'x' }],
  ])('%s is refused naming run and the tool, for a read, a write and an undeclared tool', async (_, run) => {
    const cache = new ToolCache();
    cache.register('Read', { cacheable: true, ttl: { turns: 5 } });
    cache.register('Edit', { writes: ['file'] });
    for (const tool of ['Read', 'Edit', 'Lint']) {
      const err = await cache.call(tool, { path: 'a.ts' }, run as never, { scope: '', callId: 'toolu_1' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe('run');
      expect((err as Error).message).toContain(tool);
    }
  });
});
