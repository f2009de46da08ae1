/**
 * The README's quick start, as a user of the npm package runs it: the packed tarball installed in a fresh project
 * with nothing else, then `npx cachepoint demo` (the bundled session rendered and priced), `--help`, and what the
 * "Try it on your own logs" section does next (`simulate` on a trace; `import` of a file that is not a log). A user
 * sees output and one-line errors that name the file and line, never a stack.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { install, pack, type Packed } from './project.js';

let packed: Packed;
let dir: string;
beforeAll(() => {
  packed = pack('cachepoint-quick-start-');
  dir = install(packed, 'quick-start', {}, []);
});
afterAll(() => packed?.remove());

/** `npx cachepoint …` in the project, as the README writes it (`--no-install`: the package's own bin, never a download). */
function npx(...args: string[]) {
  const r = spawnSync('npx', ['--no-install', 'cachepoint', ...args], { cwd: dir, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the README's quick start from the packed package", () => {
  it('npx cachepoint demo renders the bundled session and prices it against the peer strategies', { timeout: 120_000 }, () => {
    const demo = npx('demo');
    expect(demo.stderr).toBe('');
    expect(demo.status).toBe(0);
    expect(demo.stdout).toMatch(/16 requests replayed/);
    expect(demo.stdout).toMatch(/④/);
    expect(demo.stdout).toMatch(/^cachepoint\s+cachepoint \(conservative\)/m);
    expect(demo.stdout).toMatch(/^ideal\s+ideal bound/m);
  });

  it('--help lists the commands; simulate reads the shipped trace', { timeout: 120_000 }, () => {
    const help = npx('--help');
    expect(help.status).toBe(0);
    for (const command of ['render', 'replay', 'simulate', 'report', 'import', 'demo']) expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
    const simulate = npx('simulate', 'node_modules/cachepoint/fixtures/demo.jsonl');
    expect(simulate.status).toBe(0);
    expect(simulate.stdout).toMatch(/cachepoint vs the ideal bound of its own requests/);
  });

  it('import of a file that is not a log: one line naming the file and line, exit 1, no stack', { timeout: 120_000 }, () => {
    writeFileSync(join(dir, 'session.jsonl'), '{"request":{"model":"claude-sonnet-4-6","messages":[]}}\nnot json\n');
    const bad = npx('import', 'session.jsonl', '--out', 'trace.jsonl');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^cachepoint import: session\.jsonl:\d+: /);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});
