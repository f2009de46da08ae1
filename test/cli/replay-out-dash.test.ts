/**
 * `--out -` is standard output, as `-` is standard input for the inputs (cli/io.ts `inputPath`): a user who pipes a
 * trace in with `-` expects `--out -` to print, not to make a file named `-` in the working directory.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliIn } from './run.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-out-dash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const DEMO = resolve('fixtures/demo.jsonl');

describe('cachepoint replay --out -', { timeout: 120_000 }, () => {
  it('prints the requests as without --out, and makes no file named -', async () => {
    const [dash, plain] = await Promise.all([cliIn(dir, 'replay', DEMO, '--out', '-'), cliIn(dir, 'replay', DEMO)]);
    expect(dash.code).toBe(0);
    expect(dash.stderr).toBe('');
    expect(dash.stdout.split('\n').length).toBeGreaterThan(10);
    expect(dash.stdout).toBe(plain.stdout);
    expect(existsSync(join(dir, '-'))).toBe(false);
  });
});
