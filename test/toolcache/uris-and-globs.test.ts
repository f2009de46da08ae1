/**
 * Argument spellings MCP tools use for files that `fileTag` leaves as they are: a `file://` URI (`uri:
 * 'file:///repo/a.ts'`, resources and LSP tools), and a glob pattern tagged as a path (`Glob({ pattern:
 * 'src/**\/*.ts' })` with `tags: a => [fileTag(a.pattern)]`). A write to a file such a read covers must evict it.
 * The agent's working directory here is `/repo`.
 */

import { describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { opts } from './helpers.js';

function cacheWithTools(): ToolCache {
  const cache = new ToolCache();
  cache.register('Read', { cacheable: true, ttl: { turns: 10 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  return cache;
}

/** Whether a write to `written` evicts a read cached as `read`. */
async function evicts(read: string, written: string): Promise<boolean> {
  const cache = cacheWithTools();
  await cache.call('Read', { path: read }, () => 'v1', opts('r1'));
  await cache.call('Edit', { path: written }, () => 'ok', opts('w1'));
  return (await cache.call('Read', { path: read }, () => 'v2', opts('r2'))).cache.type !== 'hit';
}

const URIS = [
  ['file:///repo/src/a.ts', '/repo/src/a.ts'],
  ['file:///repo/src/a.ts', 'src/a.ts'],
  ['file:///repo/src/caf%C3%A9.ts', '/repo/src/café.ts'],
  ['file:///C:/repo/src/a.ts', 'C:\\repo\\src\\a.ts'],
] as const;

const GLOBS = [
  ['src/**/*.ts', 'src/lib/a.ts'],
  ['src/*.ts', 'src/a.ts'],
  ['/repo/src/**/*.ts', '/repo/src/lib/a.ts'],
  ['/repo/src/**/*.ts', 'src/lib/a.ts'],
  ['src/**/*.ts', '/repo/src/lib/a.ts'],
  ['**/*.ts', 'lib/a.ts'],
  ['**/*.ts', '/repo/lib/a.ts'],
  ['src/{a,b}.ts', 'src/b.ts'],
  ['src/?.ts', 'src/a.ts'],
  ['src/[ab].ts', 'src/b.ts'],
] as const;

describe('ToolCache: file URIs and glob patterns as file tags', () => {
  it.each(URIS)('a read of %s is evicted by a write to %s, and the reverse', async (uri, path) => {
    expect([await evicts(uri, path), await evicts(path, uri)]).toEqual([true, true]);
  });

  it.each(GLOBS)('a read of the glob %s is evicted by a write to %s', async (glob, path) => {
    expect(await evicts(glob, path)).toBe(true);
  });

  it('a write outside a URI or a glob leaves it cached', async () => {
    expect(await evicts('file:///repo/src/a.ts', '/repo/src/b.ts')).toBe(false);
    expect(await evicts('file:///repo/src/a.ts', 'file:///elsewhere/a.ts')).toBe(false);
    expect(await evicts('src/**/*.ts', 'docs/a.md')).toBe(false);
    expect(await evicts('/repo/src/**/*.ts', '/repo/docs/a.md')).toBe(false);
  });
});
