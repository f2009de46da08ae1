/**
 * `new ToolCache({ cwd })`: relative paths resolved against the agent's working directory, so a write of one kind
 * of path (absolute, relative) evicts exactly the reads of the other kind that name what it wrote, instead of all
 * of them (directories.test.ts pins the default, which does not know the working directory). Real files in a
 * temporary directory (the working directory) and a real shell; the truth is what the disk holds.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { fileTag } from '../../src/toolcache/policy.js';
import { ToolCache } from '../../src/toolcache/tool-cache.js';
import { unmark } from './helpers.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'cachepoint-cwd-'));
  mkdirSync(join(root, 'src', 'lib'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'a1');
  writeFileSync(join(root, 'src', 'b.ts'), 'b1');
  writeFileSync(join(root, 'src', 'lib', 'x.ts'), 'x1');
  writeFileSync(join(root, 'README'), 'r1');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A cache whose file tools run in `cwd`: Read of a file, LS of a directory, Write and a shell's `rm -r` as writes. */
function tools(cwd: string, options: { cwd?: string } = { cwd }) {
  const cache = new ToolCache(options);
  const tag = (a: { path: string }) => [fileTag(a.path)];
  cache.register('Read', { cacheable: true, ttl: { turns: 10 }, reads: ['file'], tags: tag });
  cache.register('LS', { cacheable: true, ttl: { turns: 10 }, reads: ['file'], tags: tag });
  cache.register('Write', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  cache.register('Remove', { writes: ['file'], tags: (a: { path: string }) => [fileTag(a.path)] });
  const at = (p: string) => (isAbsolute(p) ? p : join(cwd, p));
  let n = 0;
  const id = () => ({ scope: '', callId: `c${++n}` });
  return {
    read: (path: string) =>
      cache.call('Read', { path }, (a: { path: string }) => (existsSync(at(a.path)) ? readFileSync(at(a.path), 'utf8') : 'missing'), id()),
    ls: (path: string) => cache.call('LS', { path }, (a: { path: string }) => readdirSync(at(a.path)).sort().join(' '), id()),
    write: (path: string, content: string) =>
      cache.call(
        'Write',
        { path },
        (a: { path: string }) => {
          writeFileSync(at(a.path), content);
          return 'ok';
        },
        id(),
      ),
    remove: (path: string) =>
      cache.call('Remove', { path }, (a: { path: string }) => execFileSync('bash', ['-c', `rm -r ${JSON.stringify(a.path)}`], { cwd, encoding: 'utf8' }), id()),
  };
}

describe('ToolCache({ cwd }): relative paths resolved against the working directory', () => {
  it('a relative write evicts the absolute read of its file and the listing of its directory, and no other absolute read', async () => {
    const t = tools(root);
    const abs = (p: string) => join(root, p);
    for (const r of [() => t.read(abs('src/a.ts')), () => t.read(abs('src/b.ts')), () => t.ls(abs('src')), () => t.ls(abs('src/lib'))]) await r();
    await t.write('src/a.ts', 'a2');
    expect(await t.read(abs('src/a.ts'))).toMatchObject({ content: 'a2', cache: { type: 'miss' } });
    expect((await t.ls(abs('src'))).cache.type).toBe('miss'); // its directory's listing (a new file would show)
    expect((await t.read(abs('src/b.ts'))).cache.type).toBe('hit'); // without cwd: evicted (every absolute read)
    expect((await t.ls(abs('src/lib'))).cache.type).toBe('hit');
    await t.write('src/c.ts', 'c1');
    expect(await t.ls(abs('src'))).toMatchObject({ content: 'a.ts b.ts c.ts lib', cache: { type: 'miss' } });
  });

  it('an absolute write evicts the relative reads of its file (also spelled with ..) and no other relative read', async () => {
    const t = tools(join(root, 'src'));
    for (const r of [() => t.read('a.ts'), () => t.read('./lib/../a.ts'), () => t.read('b.ts'), () => t.read('../README'), () => t.ls('.')]) await r();
    await t.write(join(root, 'src', 'a.ts'), 'a2');
    expect(await t.read('a.ts')).toMatchObject({ content: 'a2', cache: { type: 'miss' } });
    expect(unmark((await t.read('./lib/../a.ts')).content)).toBe('a2');
    expect((await t.ls('.')).cache.type).toBe('miss');
    expect((await t.read('b.ts')).cache.type).toBe('hit');
    expect((await t.read('../README')).cache.type).toBe('hit');
    await t.write(join(root, 'README'), 'r2');
    expect(await t.read('../README')).toMatchObject({ content: 'r2', cache: { type: 'miss' } });
    expect((await t.read('b.ts')).cache.type).toBe('hit');
  });

  it('a relative directory removed (a real rm -r) evicts the absolute reads under it, and no absolute read beside it', async () => {
    const t = tools(root);
    const abs = (p: string) => join(root, p);
    await t.read(abs('src/lib/x.ts'));
    await t.read(abs('src/a.ts'));
    await t.remove('src/lib');
    expect(await t.read(abs('src/lib/x.ts'))).toMatchObject({ content: 'missing', cache: { type: 'miss' } });
    expect((await t.read(abs('src/a.ts'))).cache.type).toBe('hit');
  });

  it('an absolute directory removed evicts the relative reads under it, wherever in it the working directory is', async () => {
    const t = tools(join(root, 'src', 'lib'));
    await t.read('x.ts');
    await t.read('../a.ts');
    await t.read('../../README');
    await t.remove(join(root, 'src', 'lib'));
    expect(await t.read('x.ts')).toMatchObject({ content: 'missing', cache: { type: 'miss' } });
    expect((await t.read('../a.ts')).cache.type).toBe('hit');
    expect((await t.read('../../README')).cache.type).toBe('hit');
  });

  it('without cwd, the default is unchanged: a write of one kind evicts every read of the other kind', async () => {
    const t = tools(root, {});
    await t.read(join(root, 'src', 'b.ts'));
    await t.read(join(root, 'README'));
    await t.write('src/a.ts', 'a2');
    expect((await t.read(join(root, 'src', 'b.ts'))).cache.type).toBe('miss');
    expect((await t.read(join(root, 'README'))).cache.type).toBe('miss');
  });

  it('refuses a cwd that is not an absolute directory, naming the option', () => {
    for (const bad of ['src', './x', '', 42]) expect(() => new ToolCache({ cwd: bad as never })).toThrow(InvalidOptionError);
    expect(() => new ToolCache({ cwd: 'repo' })).toThrow(/cwd: must be an absolute directory/);
    expect(() => new ToolCache({ cwd: 'C:\\repo' })).not.toThrow();
  });
});
