/**
 * A report that fails (a broken trace line, a peer refused after the work) must leave --out as it found it.
 * It used to open --out (truncating it) before the work and `rm` that path after a failure: a FIFO or a link
 * given as --out was deleted (as root, `--out /dev/null` or `/dev/stdout` would be too), a link's target was
 * left empty, and the previous report in its place was lost. Only a file the failed run itself created is removed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliIn, spawnCliLimited } from '../cli/run.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-report-fail-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The demo trace cut in the middle of its 7th line: the report fails after it opened --out. */
function brokenTrace(): string {
  const lines = readFileSync('fixtures/demo.jsonl', 'utf8').split('\n');
  const file = join(dir, 'broken.jsonl');
  writeFileSync(file, `${lines.slice(0, 6).join('\n')}\n${lines[6]!.slice(0, 300)}\n`);
  return file;
}

describe('cachepoint report that fails', { timeout: 120_000 }, () => {
  it('keeps an existing report, a link and its target as they were, and removes only the file it created', async () => {
    const trace = brokenTrace();
    const previous = join(dir, 'previous.html');
    writeFileSync(previous, '<p>last week</p>');
    const target = join(dir, 'target.html');
    writeFileSync(target, '<p>kept</p>');
    const link = join(dir, 'link.html');
    symlinkSync(target, link);
    const fresh = join(dir, 'fresh.html');
    for (const out of [previous, link, fresh]) {
      const r = await cliIn(dir, 'report', trace, '--out', out);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/broken\.jsonl:7:\d+: not valid JSON/);
    }
    expect(readFileSync(previous, 'utf8')).toBe('<p>last week</p>');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('<p>kept</p>');
    expect(existsSync(fresh)).toBe(false);
  });

  it('a report that succeeds replaces a longer file whole (the file is emptied before the write)', async () => {
    const out = join(dir, 'long.html');
    writeFileSync(out, 'x'.repeat(3_000_000));
    const r = await cliIn(process.cwd(), 'report', 'fixtures/demo.jsonl', '--out', out);
    expect(r.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.endsWith('</html>\n')).toBe(true);
    expect(html).not.toContain('xxxx');
  });

  it.runIf(process.platform !== 'win32')('does not delete a FIFO given as --out', async () => {
    const trace = brokenTrace();
    const fifo = join(dir, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    // A reader on the other end, so opening the FIFO for writing does not block.
    const reader = new Promise<string>((resolve, reject) => {
      import('node:fs').then(({ createReadStream }) => {
        const chunks: Buffer[] = [];
        createReadStream(fifo)
          .on('data', (c) => chunks.push(c as Buffer))
          .on('end', () => resolve(Buffer.concat(chunks).toString()))
          .on('error', reject);
      }, reject);
    });
    const r = await cliIn(dir, 'report', trace, '--out', fifo);
    expect(r.code).toBe(1);
    await reader;
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  // A full disk, as a file-size limit (RLIMIT_FSIZE; SIGXFSZ ignored so the write fails with EFBIG instead).
  it.runIf(process.platform === 'linux')('a write that fails half-way (a file-size limit) leaves no partial report', async () => {
    const previous = join(dir, 'limited-previous.html');
    writeFileSync(previous, '<p>last week</p>');
    const fresh = join(dir, 'limited-fresh.html');
    for (const out of [previous, fresh]) {
      const r = await spawnCliLimited(20, 'report', 'fixtures/demo.jsonl', '--out', out);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toBe(`cachepoint report: cannot write ${out}: EFBIG\n`);
    }
    // The previous report was emptied to make room (it is gone either way); never left as a cut-off page.
    expect(readFileSync(previous, 'utf8')).toBe('');
    expect(existsSync(fresh)).toBe(false);
  });
});
