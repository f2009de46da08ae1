/**
 * A write to one spelling of a file must evict the reads cached under every other spelling of it. The cache
 * cannot know the agent's working directory or whether the file system folds case, so it assumes the worst:
 * a relative path may be any absolute path that ends with it, and names that differ only in case or Unicode
 * normalization may be one file (macOS and Windows file systems). Over-evicting is safe; under-evicting is a
 * stale answer. The agent's working directory here is `/repo`.
 */

import { describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { opts } from './helpers.js';

/** Spellings of `/repo/src/café.ts` as a read or a write may give it, with the working directory `/repo`. */
const SAME_FILE = [
  'src/café.ts',
  './src/café.ts',
  'src//café.ts',
  'src/./café.ts',
  'lib/../src/café.ts',
  'src\\café.ts',
  '/repo/src/café.ts',
  '/repo//src/./café.ts',
  '/repo/src/café.ts/',
  '../repo/src/café.ts',
  'SRC/CAFÉ.TS', // case-insensitive file systems (APFS, NTFS) name one file
  'src/cafe\u0301.ts', // the decomposed é (NFD): one file on APFS/HFS+
  'C:\\repo\\src\\café.ts', // Windows: the same tree under a drive letter
  'c:/repo/src/café.ts',
];

/** Paths that are not `/repo/src/café.ts` wherever the agent runs: a write to them must leave it cached. */
const OTHER_FILES = ['/elsewhere/café.ts', 'src/other.ts', '/repo/src/café.tsx', 'lib/café.ts'];

function cacheWithTools(): ToolCache {
  const cache = new ToolCache();
  cache.register('Read', { cacheable: true, ttl: { turns: 10 }, reads: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  return cache;
}

describe('ToolCache: a write evicts the reads of every spelling of its file', () => {
  it.each(SAME_FILE.flatMap((read) => SAME_FILE.filter((w) => w !== read).map((write) => [read, write] as const)))(
    'Read(%j) is not a hit after Edit(%j)',
    async (read, write) => {
      const cache = cacheWithTools();
      await cache.call('Read', { path: read }, async () => 'v1', opts('r1'));
      expect((await cache.call('Read', { path: read }, async () => 'v1', opts('r2'))).cache.type).toBe('hit');
      await cache.call('Edit', { path: write }, async () => 'ok', opts('w'));
      const after = await cache.call('Read', { path: read }, async () => 'v2', opts('r3'));
      expect(after).toMatchObject({ content: 'v2', cache: { type: 'miss' } });
    },
  );

  // Plain ASCII names take a shorter way to their folded spelling than `café` does: the same pairs must meet.
  it.each([
    ['src/main.ts', 'SRC/Main.TS'],
    ['/repo/src/main.ts', '/REPO/Src/MAIN.ts'],
    ['/Repo/SRC/Main.ts', 'src/main.ts'],
    ['SRC/MAIN.TS', '/repo/src/main.ts'],
  ])('Read(%j) is not a hit after Edit(%j) (ASCII names differing in case)', async (read, write) => {
    const cache = cacheWithTools();
    await cache.call('Read', { path: read }, async () => 'v1', opts('r1'));
    await cache.call('Edit', { path: write }, async () => 'ok', opts('w'));
    expect(await cache.call('Read', { path: read }, async () => 'v2', opts('r2'))).toMatchObject({ content: 'v2', cache: { type: 'miss' } });
  });

  it('a relative write evicts a listing of `/` (the working directory may be the root)', async () => {
    const cache = cacheWithTools();
    await cache.call('Read', { path: '/' }, async () => 'repo', opts('r1'));
    await cache.call('Edit', { path: 'new.ts' }, async () => 'ok', opts('w'));
    expect(await cache.call('Read', { path: '/' }, async () => 'new.ts repo', opts('r2'))).toMatchObject({ content: 'new.ts repo', cache: { type: 'miss' } });
  });

  // Same kind only: across kinds a write evicts every read of the other kind (the working directory may be in or
  // under the written path, or be the path an absolute read lists: directories.test.ts).
  const sameKind = (read: string) => OTHER_FILES.filter((w) => w.startsWith('/') === read.startsWith('/')).map((w) => [read, w] as const);
  it.each([...sameKind('/repo/src/café.ts'), ...sameKind('src/café.ts')])(
    'Read(%j) stays cached after Edit(%j), a file that is not it anywhere',
    async (read, write) => {
      const cache = cacheWithTools();
      await cache.call('Read', { path: read }, async () => 'v1', opts('r1'));
      await cache.call('Edit', { path: write }, async () => 'ok', opts('w'));
      expect((await cache.call('Read', { path: read }, async () => 'v1', opts('r2'))).cache.type).toBe('hit');
    },
  );
});
