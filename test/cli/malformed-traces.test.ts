/**
 * The CLI against input that is wrong in every way a file can be: truncated,
 * wrong types, binary, a BOM, CRLF, huge lines, deep nesting, lines out of
 * order, directories, unwritable outputs. Whatever comes in, `main()` answers
 * with a status (0, 1, or 2 for usage), never throws, never prints a stack
 * trace, and an error about the trace is one line that names `file:line`.
 *
 * The fuzz part draws mutations of a small valid trace with fast-check; a
 * failure prints its seed (`seed: N`), and `CLI_FUZZ_SEED=N` replays it
 * (`CLI_FUZZ_RUNS` sets the number of cases; default 120).
 */
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEvents, lines } from './malformed.js';
import { COMMANDS as CLI_COMMANDS, main } from '../../src/cli/main.js';
import { cliIn, memoryWriter, type RunResult } from './run.js';

let dir: string;
let base: string;
let baseReplay: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-fuzz-'));
  base = lines(baseEvents());
  writeFileSync(join(dir, 'base.jsonl'), base);
  const r = await cliIn(dir, 'replay', 'base.jsonl');
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  baseReplay = r.stdout;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const STACK = /\n\s+at |^\s+at /m;

/** What holds for every run: a status, no stack, and on failure exactly one error line. */
function expectClean(r: RunResult, what: string): void {
  expect([0, 1, 2], `${what}: exit status`).toContain(r.code);
  expect(r.stderr, `${what}: no stack trace`).not.toMatch(STACK);
  expect(r.stderr, `${what}: not an internal error`).not.toContain('internal error');
  if (r.code !== 0) {
    const errors = r.stderr.split('\n').filter((l) => l !== '' && !l.includes(': warning: '));
    expect(errors, `${what}: one error line`).toHaveLength(1);
  }
}

/** A failure about the trace's content names the file and the line (where there is one). */
function expectFileLine(r: RunResult, file: string, what: string): void {
  expectClean(r, what);
  if (r.code !== 0) {
    expect(r.code, `${what}: bad input is exit 1`).toBe(1);
    const name = file.replace(/[.]/g, '\\.');
    // A valid trace with fewer requests than `render` wants has no line to blame: it names the file.
    const where = new RegExp(`${name}:\\d+(:\\d+)?: |--request( \\d+)?: ${name} has \\d+ requests`);
    expect(r.stderr, `${what}: names file:line`).toMatch(where);
  }
}

let n = 0;
function writeCase(content: string | Buffer): string {
  const name = `case-${++n}.jsonl`;
  writeFileSync(join(dir, name), content);
  return name;
}

const COMMANDS = [['replay', '--out', 'out.jsonl'], ['render'], ['simulate', '--json']] as const;

function run(command: (typeof COMMANDS)[number], file: string): Promise<RunResult> {
  const [name, ...flags] = command;
  return cliIn(dir, name, file, ...flags);
}

const WRONG_VALUES = [null, 0, -1, 1.5, '', 'x', true, [], {}, [null], { type: 'text' }, '2026-13-45T99:99:99Z'];

/** Every (path → value) pair inside an event, to pick one to corrupt. */
function leaves(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [path];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [path, ...entries.flatMap(([k, v]) => leaves(v, [...path, k]))];
}

function setAt(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path.at(-1)!] = value;
  return copy;
}

/** A mutation of the base trace: the bytes of a malformed (or sometimes still valid) file. */
const mutation: fc.Arbitrary<{ label: string; bytes: Buffer }> = fc.oneof(
  fc.nat().map((k) => {
    const cut = k % (base.length + 1);
    return { label: `truncated at byte ${cut}`, bytes: Buffer.from(base.slice(0, cut)) };
  }),
  fc.tuple(fc.nat(), fc.nat(), fc.constantFrom(...WRONG_VALUES)).map(([i, j, v]) => {
    const events = baseEvents();
    const e = i % events.length;
    const spots = leaves(events[e]);
    const path = spots[j % spots.length]!;
    events[e] = setAt(events[e], path, v) as Record<string, unknown>;
    return { label: `event ${e} ${path.join('.') || '(whole)'} = ${JSON.stringify(v)}`, bytes: Buffer.from(lines(events)) };
  }),
  fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 64 })).map(([k, junk]) => {
    const raw = Buffer.from(base);
    const at = k % (raw.length + 1);
    return { label: `${junk.length} binary bytes at ${at}`, bytes: Buffer.concat([raw.subarray(0, at), Buffer.from(junk), raw.subarray(at)]) };
  }),
  fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('swap', 'drop', 'repeat')).map(([a, b, how]) => {
    const rows = base.slice(0, -1).split('\n');
    const i = a % rows.length;
    const j = b % rows.length;
    if (how === 'swap') [rows[i], rows[j]] = [rows[j]!, rows[i]!];
    else if (how === 'drop') rows.splice(i, 1);
    else rows.splice(i, 0, rows[j]!);
    return { label: `lines ${how} ${i} ${j}`, bytes: Buffer.from(`${rows.join('\n')}\n`) };
  }),
  fc.uint8Array({ maxLength: 2048 }).map((junk) => ({ label: `${junk.length} random bytes`, bytes: Buffer.from(junk) })),
);

describe('malformed traces (fuzz)', () => {
  const runs = Number(process.env.CLI_FUZZ_RUNS ?? 120);
  const seed = process.env.CLI_FUZZ_SEED === undefined ? undefined : Number(process.env.CLI_FUZZ_SEED);

  it(
    `${runs} mutated traces through replay, render and simulate: a status, one line naming file:line, never a stack`,
    async () => {
      await fc.assert(
        fc.asyncProperty(mutation, fc.constantFrom(...COMMANDS), async ({ label, bytes }, command) => {
          const file = writeCase(bytes);
          const r = await run(command, file);
          expectFileLine(r, file, `${command[0]} of ${label}`);
        }),
        { numRuns: runs, ...(seed === undefined ? {} : { seed }) },
      );
      // npm run fuzz runs this with a larger CLI_FUZZ_RUNS.
    },
    Math.max(120_000, runs * 1_000),
  );
});

describe('files that are fine though they look odd', () => {
  it('a BOM, CRLF line ends, and both, replay to the same bytes as the plain file', async () => {
    for (const text of [`\uFEFF${base}`, base.replace(/\n/g, '\r\n'), `\uFEFF${base.replace(/\n/g, '\r\n')}`]) {
      const r = await cliIn(dir, 'replay', writeCase(text));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(baseReplay);
    }
  });

  it('a 4 MB tool result on one line replays (past the window: one warning naming its line); a 4 MB line of garbage is one error naming its line', async () => {
    const events = baseEvents();
    (events[3]!.content as { content: unknown }[])[0]!.content = 'x'.repeat(4_000_000);
    const bigFile = writeCase(lines(events));
    const big = await cliIn(dir, 'replay', bigFile, '--out', 'big.out.jsonl');
    expectClean(big, 'a 4 MB result');
    expect(big.code).toBe(0);
    // The request after the result (line 7) no longer fits the 200k window; it is rendered anyway.
    for (const warning of big.stderr.trim().split('\n')) {
      expect(warning).toMatch(new RegExp(`^cachepoint replay: warning: ${bigFile}:\\d+: .*window allows 200000.*Rendered without compaction\\.$`));
    }
    expect(readFileSync(join(dir, 'big.out.jsonl'), 'utf8').split('\n')).toHaveLength(baseReplay.split('\n').length);

    const rows = base.split('\n');
    rows.splice(3, 0, `{"type":"user","content":"${'y'.repeat(4_000_000)}`);
    const file = writeCase(rows.join('\n'));
    const bad = await cliIn(dir, 'replay', file);
    expectClean(bad, 'huge broken line');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${file}:4`);
    // The message does not echo 4 MB back.
    expect(bad.stderr.length).toBeLessThan(1000);
  });
});

describe('errors the CLI used to crash on (regressions)', () => {
  it('a TRACE that is a directory: exit 1, one line naming it', async () => {
    mkdirSync(join(dir, 'a-dir.jsonl'), { recursive: true });
    for (const command of COMMANDS) {
      const r = await run(command, 'a-dir.jsonl');
      expectClean(r, `${command[0]} of a directory`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('a-dir.jsonl');
      expect(r.stderr).toContain('EISDIR');
    }
  });

  it('--out to a directory, into a missing folder, or under a file: exit 1 naming the path, before any work', async () => {
    mkdirSync(join(dir, 'out-dir'), { recursive: true });
    writeFileSync(join(dir, 'plain-file'), '');
    for (const out of ['out-dir', 'no/such/folder/out.jsonl', 'plain-file/out.jsonl']) {
      const r = await cliIn(dir, 'replay', 'base.jsonl', '--out', out);
      expectClean(r, `--out ${out}`);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(out);
    }
  });

  it.runIf(existsSync('/dev/full'))('--out to a device that fails every write (/dev/full): exit 1, ENOSPC, no unhandled stream error', async () => {
    const r = await cliIn(dir, 'replay', 'base.jsonl', '--out', '/dev/full');
    expectClean(r, '--out /dev/full');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('/dev/full');
    expect(r.stderr).toContain('ENOSPC');
  });

  // Root writes through a 0444 mode, so as root (CI containers) the read-only file is a sysfs attribute that refuses
  // writes to everyone; the test only skips where neither exists.
  const asRoot = process.getuid?.() === 0;
  const sysReadOnly = '/sys/kernel/notes';
  it.runIf(!asRoot || refusesWrites(sysReadOnly))('--out to a read-only file: exit 1 naming it', async () => {
    let out = sysReadOnly;
    if (!asRoot) {
      out = 'read-only.jsonl';
      writeFileSync(join(dir, out), '');
      chmodSync(join(dir, out), 0o444);
    }
    const r = await cliIn(dir, 'replay', 'base.jsonl', '--out', out);
    expectClean(r, '--out read-only');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(out);
  });

  it('a tool input nested 5,000 levels: exit 1 at its line (too_deep), no stack overflow', async () => {
    const rows = base.slice(0, -1).split('\n');
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    rows[2] = rows[2]!.replace('{"path":"a.ts"}', deep);
    const file = writeCase(`${rows.join('\n')}\n`);
    for (const command of COMMANDS) {
      const r = await run(command, file);
      expectFileLine(r, file, `${command[0]} of a deep input`);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${file}:3: the line nests objects and arrays more than 256 levels deep`);
    }
  });

  it('events the engine refuses after parsing name file:line (a tool_result in the tail, a tool twice, an empty instruction)', async () => {
    const cases: [string, (e: Record<string, unknown>[]) => void, number, string][] = [
      ['tool_result in the tail', (e) => void (e[4]!.content = [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'x' }]), 5, 'tool_result'],
      ['duplicate tool', (e) => void (e[0]!.tools as unknown[]).push((e[0]!.tools as unknown[])[0]), 1, 'duplicate tool name'],
      ['empty instruction', (e) => void (e[0]!.instructions = ['']), 1, 'empty instruction'],
    ];
    for (const [what, edit, line, words] of cases) {
      const events = baseEvents();
      edit(events);
      const file = writeCase(lines(events));
      const r = await cliIn(dir, 'replay', file);
      expectClean(r, what);
      expect(r.code, what).toBe(1);
      expect(r.stderr, what).toContain(`${file}:${line}: `);
      expect(r.stderr, what).toContain(words);
    }
  });

  it('a hide whose path names nothing is a warning at its line; the replay goes on to the end', async () => {
    const events = baseEvents();
    events[8] = { type: 'hide', path: 'turns/9/rounds/1/results/nope' };
    const file = writeCase(lines(events));
    const r = await cliIn(dir, 'replay', file);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringContaining(`cachepoint replay: warning: ${file}:9: hide skipped: turns/9/rounds/1/results/nope`),
    ]);
    expect(r.stdout.split('\n')).toHaveLength(baseReplay.split('\n').length);
  });

  it('usage: a second TRACE is refused (exit 2); contradictory compaction fractions are refused (exit 1, naming the flag)', async () => {
    const two = await cliIn(dir, 'render', 'base.jsonl', 'base.jsonl');
    expectClean(two, 'render A B');
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('expected one TRACE, got 2');

    const unknownFlag = await cliIn(dir, 'replay', 'base.jsonl', '--polcy', 'economy');
    expectClean(unknownFlag, 'unknown flag');
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toContain('--polcy');

    for (const flags of [
      ['--compact-target', '0.9', '--compact-threshold', '0.5'],
      ['--compact-target', '0.95'],
      ['--compact-threshold', '0.5'],
    ]) {
      const r = await cliIn(dir, 'replay', 'base.jsonl', ...flags);
      expectClean(r, flags.join(' '));
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/--compact-(target|threshold): the target \(0\.\d+\) must be below the threshold/);
    }
  });

  it('a bug of ours (a plain Error, a stack overflow) is still one line and exit 1; the stack only with CACHEPOINT_DEBUG', async () => {
    CLI_COMMANDS['__throws'] = async (argv) => {
      if (argv[0] === 'deep') {
        const dive = (n: number): number => dive(n + 1) + 1;
        dive(0);
      }
      throw new TypeError('x is not a function');
    };
    try {
      const out = memoryWriter();
      const err = memoryWriter();
      const quiet = await main(['__throws'], { stdout: out, stderr: err, cwd: dir, env: {} });
      expect(quiet).toBe(1);
      expect(err.text()).toBe('cachepoint __throws: internal error: TypeError: x is not a function (please report it; CACHEPOINT_DEBUG=1 prints the stack)\n');
      const deep = memoryWriter();
      expect(await main(['__throws', 'deep'], { stdout: out, stderr: deep, cwd: dir, env: {} })).toBe(1);
      expect(deep.text()).toBe('cachepoint __throws: the input is nested too deeply to process (stack overflow)\n');
      const debug = memoryWriter();
      expect(await main(['__throws'], { stdout: out, stderr: debug, cwd: dir, env: { CACHEPOINT_DEBUG: '1' } })).toBe(1);
      expect(debug.text()).toMatch(STACK);
      expect(out.text()).toBe('');
    } finally {
      delete CLI_COMMANDS['__throws'];
    }
  });

  it('relative paths resolve against the working directory main() is given', async () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, 'here.jsonl'), readFileSync(join(dir, 'base.jsonl')));
    const r = await cliIn(sub, 'replay', 'here.jsonl', '--out', 'here.out.jsonl');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(join(sub, 'here.out.jsonl'), 'utf8')).toBe(baseReplay);
  });
});

/** Whether opening the file for writing fails with EACCES (a file nobody may write, root included). */
function refusesWrites(file: string): boolean {
  try {
    closeSync(openSync(file, 'a'));
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EACCES';
  }
}
