/**
 * A path a write names may be a directory: `rm -r src`, an MCP `move_file` of a folder, `git checkout src`. Such a
 * write changes every file under it, and a write of a file changes the listing of every directory above it
 * (`list_directory`, `LS` tagged by their path). The cache cannot tell a directory from a file by its name, so a
 * write to a path must evict the reads of everything under it and the reads of every directory above it.
 * The tools are the MCP filesystem server's, tagged by the paths in their arguments; real files in a temp dir.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { unmark } from './helpers.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cachepoint-dirs-'));
  mkdirSync(join(root, 'src/lib'), { recursive: true });
  writeFileSync(join(root, 'src/lib/a.ts'), 'v1');
  writeFileSync(join(root, 'src/b.ts'), 'b1');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** `base`: how the agent spells paths, absolute (`root`) or relative to it (''). */
function server(base: string) {
  const at = (p: string) => (p.startsWith('/') ? p : join(root, p));
  const cache = new ToolCache();
  const tag = (a: { path: string }) => [fileTag(a.path)];
  cache.register('read_file', { cacheable: true, ttl: { turns: 10 }, reads: ['file'], tags: tag });
  cache.register('list_directory', { cacheable: true, ttl: { turns: 10 }, reads: ['file'], tags: tag });
  cache.register('write_file', { writes: ['file'], tags: tag });
  cache.register('delete_path', { writes: ['file'], tags: tag });
  cache.register('move_file', { writes: ['file'], tags: (a: { source: string; destination: string }) => [fileTag(a.source), fileTag(a.destination)] });
  let n = 0;
  const call = (tool: string, args: Record<string, string>, run: () => string) => cache.call(tool, args, run, { scope: '', callId: `c${++n}` });
  const p = (rel: string) => (base === '' ? rel : `${base}/${rel}`);
  return {
    cache,
    readFile: (rel: string) =>
      call('read_file', { path: p(rel) }, () => (existsSync(at(p(rel))) ? readFileSync(at(p(rel)), 'utf8') : 'missing')).then((r) => unmark(r.content)),
    list: (rel: string) =>
      call('list_directory', { path: p(rel) }, () =>
        readdirSync(at(p(rel)))
          .sort()
          .join(' '),
      ).then((r) => unmark(r.content)),
    write: (rel: string, text: string) =>
      call('write_file', { path: p(rel) }, () => {
        writeFileSync(at(p(rel)), text);
        return 'ok';
      }),
    remove: (rel: string) =>
      call('delete_path', { path: p(rel) }, () => {
        rmSync(at(p(rel)), { recursive: true });
        return 'ok';
      }),
    move: (from: string, to: string) =>
      call('move_file', { source: p(from), destination: p(to) }, () => {
        renameSync(at(p(from)), at(p(to)));
        return 'ok';
      }),
  };
}

describe('ToolCache: writes to a directory, and listings of a directory written into', () => {
  it('a listing read with one kind of path is evicted by a file write spelled with the other', async () => {
    const { cache } = server(root);
    const at = (path: string) => (path.startsWith('/') ? path : join(root, path));
    const list = (path: string) =>
      cache.call('list_directory', { path }, () => readdirSync(at(path)).sort().join(' '), { scope: '', callId: path }).then((r) => unmark(r.content));
    const write = (path: string) =>
      cache.call(
        'write_file',
        { path },
        () => {
          writeFileSync(at(path), 'n');
          return 'ok';
        },
        { scope: '', callId: `w${path}` },
      );
    expect(await list(`${root}/src/lib`)).toBe('a.ts');
    await write('src/lib/rel.ts');
    expect(await list(`${root}/src/lib`)).toBe('a.ts rel.ts');
    expect(await list('src')).toBe('b.ts lib');
    expect(await list('src')).toBe('b.ts lib'); // cached
    expect(cache.stats().hits).toBe(1);
    await write(`${root}/src/abs.ts`);
    expect(await list('src')).toBe('abs.ts b.ts lib');
  });

  for (const [kind, base] of [
    ['absolute', '<root>'],
    ['relative', ''],
  ] as const) {
    const make = () => server(base === '' ? '' : root);

    it(`${kind} paths: removing a directory evicts the reads of the files under it`, async () => {
      const s = make();
      expect(await s.readFile('src/lib/a.ts')).toBe('v1');
      await s.remove('src/lib');
      expect(await s.readFile('src/lib/a.ts')).toBe('missing');
    });

    it(`${kind} paths: moving a directory evicts the reads under its old and its new name`, async () => {
      const s = make();
      mkdirSync(join(root, 'old/lib'), { recursive: true });
      writeFileSync(join(root, 'old/lib/a.ts'), 'old');
      expect(await s.readFile('src/lib/a.ts')).toBe('v1');
      expect(await s.readFile('dst/lib/a.ts')).toBe('missing');
      await s.move('src', 'dst');
      expect(await s.readFile('src/lib/a.ts')).toBe('missing');
      expect(await s.readFile('dst/lib/a.ts')).toBe('v1');
    });

    it(`${kind} paths: writing a file evicts the listings of the directories above it`, async () => {
      const s = make();
      expect(await s.list('src')).toBe('b.ts lib');
      expect(await s.list('src/lib')).toBe('a.ts');
      await s.write('src/lib/new.ts', 'n');
      expect(await s.list('src/lib')).toBe('a.ts new.ts');
      await s.remove('src/b.ts');
      expect(await s.list('src')).toBe('lib');
    });

    it(`${kind} paths: a write elsewhere leaves reads and listings cached`, async () => {
      const s = make();
      mkdirSync(join(root, 'docs'));
      await s.readFile('src/lib/a.ts');
      await s.list('src/lib');
      await s.write('docs/x.md', 'x');
      await s.remove('src/b.ts');
      expect(await Promise.all([s.readFile('src/lib/a.ts'), s.list('src/lib')])).toEqual(['v1', 'a.ts']);
      expect(s.cache.stats().hits).toBe(2);
    });
  }
});

/**
 * One agent, two kinds of path: the cache does not know the working directory, so it may be the directory an
 * absolute write names (or anywhere under or above it), and an absolute read may be a listing of it. `cwd` is
 * where this agent's relative paths start.
 */
describe('ToolCache: a directory write or a listing spelled with the other kind of path', () => {
  function mixed(cwd: string) {
    const s = server(root);
    const at = (p: string) => (p.startsWith('/') ? p : join(cwd, p));
    let n = 0;
    const call = (tool: string, args: Record<string, string>, run: () => string) => s.cache.call(tool, args, run, { scope: '', callId: `m${++n}` });
    return {
      cache: s.cache,
      readFile: (p: string) =>
        call('read_file', { path: p }, () => (existsSync(at(p)) ? readFileSync(at(p), 'utf8') : 'missing')).then((r) => unmark(r.content)),
      list: (p: string) => call('list_directory', { path: p }, () => readdirSync(at(p)).sort().join(' ')).then((r) => unmark(r.content)),
      write: (p: string) =>
        call('write_file', { path: p }, () => {
          writeFileSync(at(p), 'n');
          return 'ok';
        }),
      remove: (p: string) =>
        call('delete_path', { path: p }, () => {
          rmSync(at(p), { recursive: true });
          return 'ok';
        }),
    };
  }

  it('a relative directory write evicts the absolute reads under it', async () => {
    const s = mixed(root);
    expect(await s.readFile(`${root}/src/lib/a.ts`)).toBe('v1');
    expect(await s.readFile(`${root}/src/b.ts`)).toBe('b1');
    await s.remove('src/lib');
    expect(await s.readFile(`${root}/src/lib/a.ts`)).toBe('missing');
    await s.remove('src');
    expect(await s.readFile(`${root}/src/b.ts`)).toBe('missing');
  });

  it('a relative `rm -r src` run by bash (a write tagged by its path) evicts an absolute read under it', async () => {
    const s = mixed(root);
    s.cache.register('Bash', { writes: ['file'], tags: (a: { command: string; path: string }) => [fileTag(a.path)] });
    expect(await s.readFile(`${root}/src/lib/a.ts`)).toBe('v1');
    await s.cache.call('Bash', { command: 'rm -r src', path: 'src' }, () => execFileSync('bash', ['-c', 'rm -r src'], { cwd: root, encoding: 'utf8' }), {
      scope: '',
      callId: 'bash',
    });
    expect(await s.readFile(`${root}/src/lib/a.ts`)).toBe('missing');
  });

  for (const [where, cwd] of [
    ['above it', ''],
    ['at it', 'src'],
    ['under it', 'src/lib'],
  ] as const) {
    it(`an absolute directory write evicts the relative reads under it (working directory ${where})`, async () => {
      const s = mixed(join(root, cwd));
      const rel = join('src/lib/a.ts').slice(cwd === '' ? 0 : cwd.length + 1);
      expect(await s.readFile(rel)).toBe('v1');
      await s.remove(`${root}/src`);
      expect(await s.readFile(rel)).toBe('missing');
    });
  }

  it('a read that starts with `..` is evicted by a directory write of either kind above it', async () => {
    const s = mixed(join(root, 'src'));
    expect(await s.readFile('../src/lib/a.ts')).toBe('v1');
    await s.remove('lib');
    expect(await s.readFile('../src/lib/a.ts')).toBe('missing');
    expect(await s.readFile('../src/b.ts')).toBe('b1');
    await s.remove(`${root}/src`);
    expect(await s.readFile('../src/b.ts')).toBe('missing');
  });

  it('a relative file write evicts an absolute listing of the working directory', async () => {
    const s = mixed(root);
    expect(await s.list(root)).toBe('src');
    await s.write('new.ts');
    expect(await s.list(root)).toBe('new.ts src');
    expect(await s.list(`${root}/src`)).toBe('b.ts lib');
    await s.write('src/new.ts');
    expect(await s.list(`${root}/src`)).toBe('b.ts lib new.ts');
  });

  it('an absolute file write evicts a relative listing of the working directory', async () => {
    const s = mixed(root);
    expect(await s.list('.')).toBe('src');
    await s.write(`${root}/new.ts`);
    expect(await s.list('.')).toBe('new.ts src');
  });
});
