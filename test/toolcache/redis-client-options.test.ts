/**
 * The connection options of createRedisToolCacheStore / createRedisConversationStore / nodeRedisClient were taken
 * unchecked. `commandTimeoutMs: 0`, `-5`, `'abc'` (an env var unparsed), NaN or Infinity made every command "not
 * answer within 0 ms" (a timer of 0, NaN or Infinity fires at once): the store was down forever, every call ran
 * uncached and prepare fell back with store_unavailable, with only a warning. The same for connectTimeoutMs and
 * maxReconnectDelayMs. Now an InvalidOptionError naming the option, before anything connects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { createRedisConversationStore, createRedisToolCacheStore, nodeRedisClient } from '../../src/toolcache/stores/redis.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { sharedRedis, uniqueNamespace } from './redis-fixtures/server.js';

let redis: { readonly url: string; release(): Promise<void> };

beforeAll(async () => {
  redis = await sharedRedis();
});

afterAll(async () => {
  await redis.release();
});

const BAD: [string, unknown][] = [
  ['commandTimeoutMs', 0],
  ['commandTimeoutMs', -5],
  ['commandTimeoutMs', 'abc'],
  ['commandTimeoutMs', '500'],
  ['commandTimeoutMs', Number.NaN],
  ['commandTimeoutMs', Number.POSITIVE_INFINITY],
  ['connectTimeoutMs', 0],
  ['connectTimeoutMs', 'x'],
  ['maxReconnectDelayMs', -1],
  ['maxReconnectDelayMs', Number.NaN],
];

async function refusal(make: () => Promise<{ close(): Promise<void> }>): Promise<unknown> {
  return make().then(
    async (made) => {
      await made.close();
      return undefined;
    },
    (e: unknown) => e,
  );
}

describe('Redis connection options that can never work', () => {
  it.each(BAD)('%s: %s is refused naming the option, by each create function', async (option, value) => {
    const options = { url: redis.url, namespace: uniqueNamespace('client-options'), [option]: value };
    for (const make of [
      () => createRedisToolCacheStore(options),
      () => createRedisConversationStore(options),
      () => nodeRedisClient({ url: redis.url, [option]: value }),
    ]) {
      const err = await refusal(make as () => Promise<{ close(): Promise<void> }>);
      expect(err).toBeInstanceOf(InvalidOptionError);
      expect((err as InvalidOptionError).option).toBe(option);
    }
  });

  it('takes sound values and caches through them (control)', async () => {
    const store = await createRedisToolCacheStore({
      url: redis.url,
      namespace: uniqueNamespace('client-options-ok'),
      commandTimeoutMs: 2000,
      connectTimeoutMs: 2000,
      maxReconnectDelayMs: 0,
    });
    try {
      const cache = new ToolCache({ store });
      cache.register('Read', { cacheable: true, ttl: { seconds: 60 } });
      await cache.call('Read', { path: 'a.ts' }, () => 'text', { scope: '', callId: 'toolu_1' });
      expect((await cache.call('Read', { path: 'a.ts' }, () => 'other', { scope: '', callId: 'toolu_2' })).cache.type).toBe('hit');
    } finally {
      await store.close();
    }
  });
});

describe('a Redis store onWarning that is not a function', () => {
  // It was taken, and every warning (Redis unreachable, an entry that does not decode) was then lost without a trace:
  // #warn swallows what the handler throws, so calling a string threw a TypeError nobody saw.
  it.each([
    ['a string', 'warn'],
    ['an object', { log: () => undefined }],
  ])('%s is refused naming onWarning', async (_, onWarning) => {
    const err = await refusal(() =>
      createRedisToolCacheStore({ url: redis.url, namespace: uniqueNamespace('on-warning'), onWarning: onWarning as unknown as () => void }),
    );
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect((err as InvalidOptionError).option).toBe('onWarning');
  });
});
