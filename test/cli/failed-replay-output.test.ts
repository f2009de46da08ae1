/**
 * A replay that fails half-way (a broken line after some requests were written) exits 1; its --out must not be left
 * holding the first requests as if they were the whole replay. A file the run created is removed; a file that was
 * there is emptied once writing had begun (untouched when the failure came before the first request). A replay that
 * succeeds leaves exactly its requests, none when the trace has none.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { baseEvents, lines } from './malformed.js';
import { cliIn, spawnCliLimited } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-replay-fail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The demo trace cut in the middle of line `n`. */
function cutAt(n: number): string {
  const lines = readFileSync('fixtures/demo.jsonl', 'utf8').split('\n');
  const file = join(dir, `cut-${n}.jsonl`);
  writeFileSync(file, `${lines.slice(0, n - 1).join('\n')}\n${lines[n - 1]!.slice(0, 100)}\n`);
  return file;
}

describe('cachepoint replay that fails', { timeout: 120_000 }, () => {
  it('leaves no partial --out: a file it created is removed, one that was there is emptied', async () => {
    const late = cutAt(7);
    const fresh = join(dir, 'fresh.jsonl');
    const previous = join(dir, 'previous.jsonl');
    writeFileSync(previous, 'last week\n');
    for (const out of [fresh, previous]) {
      const r = await cliIn(dir, 'replay', late, '--out', out);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/cut-7\.jsonl:7:\d+: not valid JSON/);
    }
    expect(existsSync(fresh)).toBe(false);
    expect(readFileSync(previous, 'utf8')).toBe('');
  });

  it('keeps a file that was there when it fails before writing anything', async () => {
    const early = cutAt(2);
    const previous = join(dir, 'kept.jsonl');
    writeFileSync(previous, 'last week\n');
    const r = await cliIn(dir, 'replay', early, '--out', previous);
    expect(r.code).toBe(1);
    expect(readFileSync(previous, 'utf8')).toBe('last week\n');
  });

  it('empties a file that was there when a replay succeeds with no request to write', async () => {
    const envelopeOnly = join(dir, 'envelope-only.jsonl');
    writeFileSync(envelopeOnly, `${readFileSync('fixtures/demo.jsonl', 'utf8').split('\n')[0]}\n`);
    const previous = join(dir, 'stale.jsonl');
    writeFileSync(previous, 'last week\n');
    const r = await cliIn(dir, 'replay', envelopeOnly, '--out', previous);
    expect(r.code).toBe(0);
    expect(readFileSync(previous, 'utf8')).toBe('');
  });

  // A full disk at the very end: every request fits the stream's buffer, so the failure surfaces when --out closes.
  it.runIf(process.platform === 'linux')('a write that fails at the end (a 4 KiB file-size limit) leaves no partial replay', async () => {
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, lines(baseEvents()));
    const fresh = join(dir, 'limited-fresh.jsonl');
    const previous = join(dir, 'limited-previous.jsonl');
    writeFileSync(previous, 'last week\n');
    for (const out of [fresh, previous]) {
      const r = await spawnCliLimited(4, 'replay', small, '--out', out);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(`cachepoint replay: cannot write ${out}: EFBIG\n`);
    }
    expect(existsSync(fresh)).toBe(false);
    expect(readFileSync(previous, 'utf8')).toBe('');
  });
});
