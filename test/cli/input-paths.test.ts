/**
 * A file the CLI cannot read is named the way the user typed it: a relative path stays relative (the user's
 * terminal already knows the directory; an absolute path is not what they wrote), an absolute one stays absolute.
 * Every command that reads a file, every way a path can fail: missing, a missing folder, a directory, a path
 * under a plain file, empty. One error line, exit 1, no stack.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundled } from '../helpers/bundle.js';
import { cliIn, ROOT, type RunResult, spawnCli } from './run.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-paths-'));
  mkdirSync(join(dir, 'work', 'a-dir.jsonl'), { recursive: true });
  writeFileSync(join(dir, 'work', 'plain'), '');
  writeFileSync(join(dir, 'work', 'empty.jsonl'), '');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every command that reads a file, with the flags it needs to get that far. */
const READERS: readonly (readonly [string, ...string[]])[] = [
  ['render'],
  ['replay'],
  ['replay', '--out', 'out.jsonl'],
  ['simulate'],
  ['simulate', '--json'],
  ['report', '--out', 'r.html'],
  ['import'],
  ['import', '--out', 'imported.jsonl'],
  ['demo'],
];

function run([name, ...flags]: readonly string[], file: string): Promise<RunResult> {
  return cliIn(join(dir, 'work'), name!, file, ...flags);
}

/** One error line, exit 1, no stack, no internal error. */
function expectOneLine(r: RunResult, what: string): string {
  expect(r.code, `${what}: exit`).toBe(1);
  expect(r.stderr, `${what}: no stack`).not.toMatch(/^\s+at /m);
  expect(r.stderr, `${what}: not internal`).not.toContain('internal error');
  const errors = r.stderr.split('\n').filter((l) => l !== '');
  expect(errors, `${what}: one line`).toHaveLength(1);
  return errors[0]!;
}

describe('an unreadable input is named as typed', { timeout: 120_000 }, () => {
  const cases: readonly (readonly [string, string, RegExp])[] = [
    ['missing.jsonl', 'a missing file', /ENOENT \(no such file or directory\)$/],
    ['no/such/folder/t.jsonl', 'a missing folder', /ENOENT \(no such file or directory\)$/],
    ['../work/missing.jsonl', 'a path through ..', /ENOENT \(no such file or directory\)$/],
    ['a-dir.jsonl', 'a directory', /EISDIR \(it is a directory\)$/],
    ['plain/t.jsonl', 'a path under a plain file', /ENOTDIR \(a part of the path is not a directory\)$/],
  ];
  for (const [file, what, tail] of cases) {
    it(`${what} (${file}): every command names "${file}", never the absolute path`, async () => {
      for (const command of READERS) {
        const r = await run(command, file);
        const line = expectOneLine(r, `${command.join(' ')} ${file}`);
        expect(line, command.join(' ')).toMatch(new RegExp(`^cachepoint ${command[0]}: cannot \\w+ ${file.replace(/[.]/g, '\\.')}: `));
        expect(line, command.join(' ')).toMatch(tail);
        expect(line, command.join(' ')).not.toContain(dir);
      }
    });
  }

  it('an absolute path stays the absolute path typed', async () => {
    const file = join(dir, 'work', 'gone.jsonl');
    for (const command of READERS) {
      const line = expectOneLine(await run(command, file), command.join(' '));
      expect(line).toBe(`cachepoint ${command[0]}: cannot open ${file}: ENOENT (no such file or directory)`);
    }
  });

  it('an empty file is named with its line, as typed', async () => {
    for (const command of READERS) {
      const line = expectOneLine(await run(command, 'empty.jsonl'), command.join(' '));
      expect(line).toMatch(new RegExp(`^cachepoint ${command[0]}: empty\\.jsonl:1: empty (trace|file)`));
    }
  });

  // Root reads through a 000 mode, so this runs only as another user.
  it.runIf(process.getuid?.() !== 0)('an unreadable file (mode 000) is named as typed', async () => {
    writeFileSync(join(dir, 'work', 'locked.jsonl'), '{}\n');
    chmodSync(join(dir, 'work', 'locked.jsonl'), 0o000);
    for (const command of READERS) {
      const line = expectOneLine(await run(command, 'locked.jsonl'), command.join(' '));
      expect(line).toBe(`cachepoint ${command[0]}: cannot open locked.jsonl: EACCES (permission denied)`);
    }
  });

  // As root (CI containers) the same, through the built executable run as nobody (setpriv drops to uid 65534).
  const SETPRIV = '/usr/bin/setpriv';
  it.runIf(process.getuid?.() === 0 && existsSync(SETPRIV))('an unreadable file, as root: the CLI run as nobody names it as typed', async () => {
    const bin = await bundled(join(ROOT, 'src/cli/bin.ts'));
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777); // nobody may write the outputs here, not read the trace
    writeFileSync(join(open, 'locked.jsonl'), '{}\n');
    chmodSync(join(open, 'locked.jsonl'), 0o000);
    chmodSync(dir, 0o755);
    for (const [name, ...flags] of READERS) {
      const r = await new Promise<RunResult>((done) => {
        execFile(
          SETPRIV,
          ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, bin, name!, 'locked.jsonl', ...flags],
          { cwd: open, env: { ...process.env, NO_COLOR: '1' } },
          (err, stdout, stderr) => done({ code: typeof err?.code === 'number' ? err.code : err ? -1 : 0, stdout, stderr }),
        );
      });
      expect(expectOneLine(r, name!)).toBe(`cachepoint ${name}: cannot open locked.jsonl: EACCES (permission denied)`);
    }
  });

  it('the built executable says the same (a real process, cwd = the repository)', async () => {
    const r = await spawnCli('simulate', 'no/such/trace.jsonl');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('cachepoint simulate: cannot open no/such/trace.jsonl: ENOENT (no such file or directory)\n');
  });
});
