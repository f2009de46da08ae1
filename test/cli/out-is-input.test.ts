/**
 * An --out that names the input itself (`report t.jsonl --out t.jsonl`, a typo, a link to it): the output was
 * opened (truncated) before the input was read, so the user's trace was destroyed (report then removed the
 * empty file; replay left it empty), and import overwrote the log it had read. Refused before anything is opened.
 */
import { copyFileSync, linkSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliIn, ROOT } from './run.js';

let dir: string;
const DEMO = readFileSync(join(ROOT, 'fixtures/demo.jsonl'), 'utf8');
const LOG = readFileSync(join(ROOT, 'fixtures/import/messages-log.jsonl'), 'utf8');
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-out-is-input-'));
  copyFileSync(join(ROOT, 'fixtures/demo.jsonl'), join(dir, 't.jsonl'));
  copyFileSync(join(ROOT, 'fixtures/demo.jsonl'), join(dir, 'u.jsonl'));
  copyFileSync(join(ROOT, 'fixtures/import/messages-log.jsonl'), join(dir, 'log.jsonl'));
  symlinkSync(join(dir, 't.jsonl'), join(dir, 'link.jsonl'));
  linkSync(join(dir, 't.jsonl'), join(dir, 'hard.jsonl'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('--out naming the input', () => {
  it.each([
    ['report', 't.jsonl', 't.jsonl'],
    ['report', 't.jsonl', './t.jsonl'],
    ['report', 't.jsonl', 'link.jsonl'],
    ['replay', 't.jsonl', 't.jsonl'],
    ['replay', 'link.jsonl', 'hard.jsonl'],
  ])('%s %s --out %s: refused, exit 1, the trace untouched', async (command, input, out) => {
    const r = await cliIn(dir, command, input, '--out', out);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`cachepoint ${command}: --out: "${out}" is the trace being read (${input}); writing it would destroy it: choose another file\n`);
    expect(readFileSync(join(dir, 't.jsonl'), 'utf8')).toBe(DEMO);
  });

  it('import LOG --out LOG: refused, exit 1, the log untouched', async () => {
    const r = await cliIn(dir, 'import', 'log.jsonl', '--out', 'log.jsonl');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('cachepoint import: --out: "log.jsonl" is the log being read (log.jsonl); writing it would destroy it: choose another file\n');
    expect(readFileSync(join(dir, 'log.jsonl'), 'utf8')).toBe(LOG);
  });

  it('another file still works', async () => {
    const r = await cliIn(dir, 'replay', 'u.jsonl', '--out', 'requests.jsonl');
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'requests.jsonl'), 'utf8').split('\n')).toHaveLength(17);
  });
});
