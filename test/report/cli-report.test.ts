/** `cachepoint report` as a user runs it: the file it writes is renderReport's, and bad input is one line. */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/run.js';
import { GENERATED_AT, reportOf } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-report-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.concurrent('cachepoint report', { timeout: 120_000 }, () => {
  it('writes the same bytes renderReport gives for the trace', async () => {
    const out = join(dir, 'demo.html');
    const [run, expected] = await Promise.all([
      cli('report', 'fixtures/demo.jsonl', '--out', out, '--generated-at', GENERATED_AT),
      reportOf({ file: 'fixtures/demo.jsonl' }),
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(expected.html);
  });

  it('answers a missing --out with its usage (exit 2) and an unknown peer with one line (exit 1)', async () => {
    const [noOut, badPeer] = await Promise.all([
      cli('report', 'fixtures/demo.jsonl'),
      cli('report', 'fixtures/demo.jsonl', '--out', join(dir, 'x.html'), '--peer', 'nope'),
    ]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/^cachepoint report: missing --out FILE\.html .*\n\nUsage: cachepoint report TRACE --out FILE\.html/);
    expect(badPeer.code).toBe(1);
    expect(badPeer.stderr).toMatch(/^cachepoint report: --peer: unknown strategy "nope"; known: .*ide4.*\n$/);
  });

  it('prices for another provider with --provider, and leaves no file behind when it refuses a peer after the work', async () => {
    const [openai, badPeer] = await Promise.all([
      cli('report', 'fixtures/demo.jsonl', '--provider', 'openai', '--model', 'gpt-5.6-terra', '--out', join(dir, 'openai.html')),
      cli('report', 'fixtures/demo.jsonl', '--provider', 'openai', '--model', 'gpt-5.6-terra', '--peer', 'ide4x', '--out', join(dir, 'gone.html')),
    ]);
    expect(openai.stderr).toBe('');
    expect(openai.code).toBe(0);
    expect(readFileSync(join(dir, 'openai.html'), 'utf8')).toContain('· openai prices ·');
    expect(badPeer.code).toBe(1);
    expect(badPeer.stderr).toMatch(/^cachepoint report: --peer: unknown strategy "ide4x"; known: /);
    expect(existsSync(join(dir, 'gone.html'))).toBe(false);
  });
});
