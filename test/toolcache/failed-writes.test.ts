/**
 * A write that fails may have written: a shell command that edited the file and then exited non-zero
 * (`sed -i … && make`), an edit whose formatter step threw after the file was saved, a write that timed out
 * after the bytes reached the disk. The cache cannot tell "failed before writing" from "failed after", so a failed
 * write must evict what it names like a successful one, or the read cached before it is served stale.
 * Real files in a temporary directory, a real shell; memory store and a real redis-server.
 */

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import type { ToolCacheStore } from '../../src/toolcache/store.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { unmark } from './helpers.js';
import { twoStores, useSharedRedis } from './redis-fixtures/helpers.js';
import { uniqueNamespace } from './redis-fixtures/server.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-failed-'));
  writeFileSync(join(dir, 'a.ts'), 'v1');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = (a: { file_path: string }) => readFileSync(join(dir, a.file_path), 'utf8');

/** A shell tool as agents run it: a non-zero exit is an error result, with whatever the command did before it. */
const bash = (a: { command: string }) => {
  try {
    return execFileSync('bash', ['-c', a.command], { cwd: dir, encoding: 'utf8' });
  } catch (e) {
    return { content: `exit ${(e as { status?: number }).status}`, isError: true };
  }
};

function tools(store?: ToolCacheStore): ToolCache {
  const cache = new ToolCache(store === undefined ? {} : { store });
  cache.register('Read', { cacheable: true, ttl: { seconds: 600 }, reads: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] });
  cache.register('Edit', { writes: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] });
  cache.register('Bash', { writes: ['file'] });
  return cache;
}

const FAILURES = [
  [
    'a shell command that edited the file, then exited 1',
    (c: ToolCache) => c.call('Bash', { command: "sed -i 's/v1/v2/' a.ts && exit 1" }, bash, { scope: '', callId: 'w' }),
  ],
  [
    'an edit whose formatter threw after the file was saved',
    (c: ToolCache) =>
      c
        .call(
          'Edit',
          { file_path: 'a.ts' },
          () => {
            writeFileSync(join(dir, 'a.ts'), 'v2');
            throw new Error('prettier: syntax error');
          },
          { scope: '', callId: 'w' },
        )
        .catch((e: Error) => e),
  ],
  [
    'a write that timed out after the bytes reached the disk',
    (c: ToolCache) =>
      c
        .call(
          'Edit',
          { file_path: 'a.ts' },
          async () => {
            writeFileSync(join(dir, 'a.ts'), 'v2');
            await Promise.resolve();
            throw new Error('tool timed out after 30000 ms');
          },
          { scope: '', callId: 'w' },
        )
        .catch((e: Error) => e),
  ],
] as const;

describe('ToolCache: a failed write that wrote half-way', () => {
  for (const [what, fail] of FAILURES) {
    it(`does not serve the read cached before ${what}`, async () => {
      const cache = tools();
      await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r1' });
      expect((await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r2' })).cache.type).toBe('hit');
      await fail(cache);
      expect(read({ file_path: 'a.ts' })).toBe('v2');
      expect(unmark((await cache.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r3' })).content)).toBe('v2');
      expect(cache.stats().failedWrites).toBe(1);
    });
  }
});

describe('ToolCache on Redis: a failed write that wrote half-way, on another replica', () => {
  const redis = useSharedRedis();

  for (const [what, fail] of FAILURES) {
    it(`leaves no replica the read cached before ${what}`, async () => {
      const [aStore, bStore] = await twoStores(redis.url(), uniqueNamespace('failed-write'), redis.opened);
      const a = tools(aStore.store);
      const b = tools(bStore.store);
      await fail(a); // a first failure: v2 is on disk, nothing cached yet
      writeFileSync(join(dir, 'a.ts'), 'v1');
      // B reads while nothing is being written: v1, cached.
      await b.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r1' });
      expect((await b.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r2' })).cache.type).toBe('hit');
      await fail(a);
      expect(unmark((await b.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r3' })).content)).toBe('v2');
      expect(unmark((await a.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'r4' })).content)).toBe('v2');
    });
  }

  it('does not cache a read on another replica that overlapped the failed write (its mark lifted, the epoch unmoved)', async () => {
    const [aStore, bStore] = await twoStores(redis.url(), uniqueNamespace('failed-write-overlap'), redis.opened);
    const a = tools(aStore.store);
    const b = tools(bStore.store);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started!: () => void;
    const readStarted = new Promise<void>((r) => (started = r));
    // A's write starts (marks), B's read starts and reads v1, A's tool writes v2 and fails, then B's read finishes.
    const w = a
      .call(
        'Edit',
        { file_path: 'a.ts' },
        async () => {
          await readStarted;
          writeFileSync(join(dir, 'a.ts'), 'v2');
          throw new Error('formatter failed');
        },
        { scope: '', callId: 'w' },
      )
      .catch((e: Error) => e);
    const slow = b.call(
      'Read',
      { file_path: 'a.ts' },
      async (x: { file_path: string }) => {
        const v = read(x);
        started();
        await gate;
        return v;
      },
      { scope: '', callId: 'slow' },
    );
    expect(await w).toBeInstanceOf(Error);
    release();
    expect((await slow).content).toBe('v1'); // it overlapped the write: either side is correct
    expect(unmark((await b.call('Read', { file_path: 'a.ts' }, read, { scope: '', callId: 'after' })).content)).toBe('v2');
  });
});
