import { describe, expect, it } from 'vitest';
import { fileTag } from '../../src/toolcache/policy.js';
import { callTargets } from '../../src/toolcache/targets.js';

/**
 * fileTag by its split-and-join path: a `.` segment put in front (which that path drops) keeps a path from the
 * shortcut for paths that are already normal, and means the same path.
 */
function fileTagReference(path: string): string {
  return fileTag(path.startsWith('/') ? `/.${path}` : `./${path}`);
}

/** A fixed-seed generator (the same strings every run). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

/** Random paths of segments that test every case: dots, slashes, backslashes, spaces, extensions of every length. */
function paths(count: number, seed: number): string[] {
  const pieces = [
    '/',
    '//',
    '.',
    '..',
    '\\',
    'a',
    'src',
    'x.ts',
    '.ts',
    'b.',
    'c.tar.gz',
    'ext123456',
    '.abcdefghi',
    '.abcdefgh',
    '.a1b2c3d',
    ' ',
    '\u00a0',
    '\u3000',
    '中',
    '.7',
    '-',
    '_',
  ];
  const next = lcg(seed);
  const out = ['', '/', '.', '..', './', '/.', '//', 'a.b', '/a.b', 'a/.b', ' .ts', '/ .ts', 'a .ts', 'a\u00a0.ts', '.ts', 'f.abcdefgh', 'f.abcdefghi', 'f.A1'];
  for (let n = 0; n < count; n++) {
    let s = '';
    const length = Math.floor(next() * 8);
    for (let k = 0; k < length; k++) s += pieces[Math.floor(next() * pieces.length)];
    out.push(s);
  }
  return out;
}

describe('paths in tool calls', () => {
  it('fileTag normalizes every path as the split-and-join form does', () => {
    for (const path of paths(20_000, 3)) expect(fileTag(path)).toBe(fileTagReference(path));
  });

  it('a call names a file exactly when its path-like argument ends in an extension (as the regex it replaced tests)', () => {
    const regex = /\/?[^/\s]+\.[A-Za-z0-9]{1,8}$/;
    const wrong: string[] = [];
    for (const path of paths(20_000, 5)) {
      const files = callTargets('Read', { file_path: path }).files;
      const expected = path.length < 1024 && regex.test(path) ? [fileTagReference(path).slice('file:'.length)] : [];
      if (JSON.stringify(files) !== JSON.stringify(expected)) wrong.push(path);
    }
    for (let c = 0; c < 0x10000; c++) {
      const path = `src/a${String.fromCharCode(c)}.ts`;
      if (callTargets('Read', { path }).files.length > 0 !== regex.test(path)) wrong.push(path);
    }
    expect(wrong).toEqual([]);
  });
});
