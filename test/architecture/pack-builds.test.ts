/**
 * `npm pack` (and `npm publish`, which packs) from a checkout that was never built ships the package a user can run:
 * `files` lists dist/, which is not committed, and nothing built it, so a maintainer's pack of a fresh clone was a
 * 16-file tarball of docs with no code (every import of `cachepoint` failed). `prepack` builds it.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'cachepoint-pack-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm pack from a checkout without dist/', () => {
  it('builds dist/ and ships the entry points', { timeout: 180_000 }, () => {
    // What a fresh clone holds (no dist/), with the dev dependencies installed.
    for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'README.md', 'LICENSE', 'src', 'docs', 'fixtures/demo.jsonl'])
      cpSync(join(ROOT, f), join(work, f), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
    expect(existsSync(join(work, 'dist'))).toBe(false);
    const out = execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: work, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const files = new Set((JSON.parse(out.slice(out.indexOf('['))) as [{ files: { path: string }[] }])[0].files.map((f) => f.path));
    expect([...files]).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'dist/cli/bin.js', 'dist/node.js', 'dist/toolcache/stores/redis.js']),
    );
  });
});
