/**
 * `cachepoint import LOG --out FILE` with a log that holds several traces writes all of them or none: a sibling
 * output that cannot be opened (a directory) or written (a device that refuses every write) fails the import
 * before anything is reported written, and leaves no trace file of this run behind (a file that was there
 * keeps its content when nothing was written to it).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliIn, ROOT } from '../cli/run.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-several-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LOG = join(ROOT, 'fixtures/import/claude-code.jsonl'); // two traces: main and agent-a748733
const errors = (stderr: string): string[] => stderr.split('\n').filter((l) => l !== '' && !l.includes(': warning: '));

describe('import with several traces: all or nothing', { timeout: 60_000 }, () => {
  it('a sibling that is a directory: exit 1 naming it as typed, nothing written, an existing FILE untouched', async () => {
    const work = join(dir, 'a');
    mkdirSync(join(work, 'out.agent-a748733.jsonl'), { recursive: true });
    for (const existing of [false, true]) {
      if (existing) writeFileSync(join(work, 'out.jsonl'), 'old\n');
      const r = await cliIn(work, 'import', LOG, '--out', 'out.jsonl');
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(errors(r.stderr)).toEqual(['cachepoint import: cannot open out.agent-a748733.jsonl: EISDIR (it is a directory)']);
      if (existing) expect(readFileSync(join(work, 'out.jsonl'), 'utf8')).toBe('old\n');
      else expect(existsSync(join(work, 'out.jsonl'))).toBe(false);
    }
  });

  it.runIf(existsSync('/dev/full'))('a sibling whose writes fail (a link to /dev/full): exit 1, ENOSPC, the first trace removed again', async () => {
    const work = join(dir, 'b');
    mkdirSync(work, { recursive: true });
    symlinkSync('/dev/full', join(work, 'out.agent-a748733.jsonl'));
    const r = await cliIn(work, 'import', LOG, '--out', 'out.jsonl');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(errors(r.stderr)).toEqual([expect.stringMatching(/^cachepoint import: cannot write out\.agent-a748733\.jsonl: ENOSPC/)]);
    expect(existsSync(join(work, 'out.jsonl'))).toBe(false);
    expect(existsSync('/dev/full')).toBe(true);
  });

  it('both written when both can be: the lines say so after the work', async () => {
    const work = join(dir, 'c');
    mkdirSync(work, { recursive: true });
    const r = await cliIn(work, 'import', LOG, '--out', 'out.jsonl');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      'wrote out.jsonl (main: 6 requests, 15 events, from claude-code)\nwrote out.agent-a748733.jsonl (agent-a748733: 2 requests, 5 events, from claude-code)\n',
    );
    for (const f of ['out.jsonl', 'out.agent-a748733.jsonl']) expect(readFileSync(join(work, f), 'utf8')).toMatch(/^\{"type":"envelope"/);
  });
});
