/**
 * An invalid Redis URL given to createRedisConversationStore / createRedisToolCacheStore (or nodeRedisClient) threw
 * node-redis's plain TypeError from createClient, whose `input` holds the whole URL, password included (review9,
 * "found, left" 6). Now an InvalidOptionError naming the option (`url`, or `clientOptions.url` which overrides it)
 * and the URL with its credentials masked, nowhere else in the error either. No Redis server is needed: the URL is
 * refused before connecting.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { createRedisConversationStore, createRedisToolCacheStore, nodeRedisClient } from '../../src/toolcache/stores/redis.js';

const SECRET = 's3cr/et@x';

async function refused(make: () => Promise<unknown>): Promise<InvalidOptionError> {
  const err = await make().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidOptionError);
  // The password appears nowhere: message, value, cause, stack, inspect.
  expect(inspect(err, { depth: 5 })).not.toContain('s3cr');
  expect(JSON.stringify({ ...(err as object), message: (err as Error).message })).not.toContain('s3cr');
  return err as InvalidOptionError;
}

describe('an invalid Redis URL is a typed error naming the option, credentials masked', () => {
  const bad: [string, RegExp][] = [
    ['http://127.0.0.1:6379', /"http:\/\/127\.0\.0\.1:6379" is not a Redis URL \(.*http:.*\): expected redis\[s\]:\/\//],
    ['not a url', /"not a url" is not a Redis URL/],
    [`redis://admin:${SECRET}@`, /"redis:\/\/\*\*\*@" is not a Redis URL/],
    [`redis://admin:${SECRET}@cache.internal:99999`, /"redis:\/\/\*\*\*@cache\.internal:99999" is not a Redis URL/],
    [`admin:${SECRET}@cache.internal`, /"\*\*\*@cache\.internal" is not a Redis URL/],
  ];
  for (const [url, message] of bad) {
    it(`createRedisConversationStore({ url: ${JSON.stringify(url.replace(SECRET, '…'))} })`, async () => {
      const err = await refused(() => createRedisConversationStore({ url }));
      expect(err.option).toBe('url');
      expect(err.message).toMatch(message);
    });
  }
  it('createRedisToolCacheStore and nodeRedisClient too; clientOptions.url is named when it is the one used', async () => {
    expect((await refused(() => createRedisToolCacheStore({ url: `rediss://u:${SECRET}@h:0x` }))).option).toBe('url');
    expect((await refused(() => nodeRedisClient({ url: 'http://h' }))).option).toBe('url');
    const viaClientOptions = await refused(() => createRedisConversationStore({ url: 'redis://h', clientOptions: { url: `ftp://u:${SECRET}@h` } }));
    expect(viaClientOptions.option).toBe('clientOptions.url');
    expect(viaClientOptions.message).toContain('"ftp://***@h"');
  });
  it('a URL that is not a string names what it got', async () => {
    const err = await refused(() => createRedisConversationStore({ url: 6379 as never }));
    expect(err.option).toBe('url');
    expect(err.message).toMatch(/^url: expected a URL string/);
  });
});
