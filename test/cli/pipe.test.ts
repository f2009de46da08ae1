/**
 * A trace piped in (`cachepoint simulate /dev/stdin`, a FIFO, `<(…)`): a pipe can be read only once, and
 * simulate and report read the trace more than once. The real executable, with the trace on its stdin.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundled } from '../helpers/bundle.js';
import { cli, ROOT, type RunResult, SPAWN_TIMEOUT_MS } from './run.js';

const DEMO = 'fixtures/demo.jsonl';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-pipe-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `cat INPUT | cachepoint ARGS` in a shell: stdin is a pipe, as a user's is (Node's own stdin
 * pipe is a socket, which /dev/stdin cannot open).
 */
async function piped(input: string, ...args: string[]): Promise<RunResult> {
  const bin = await bundled(join(ROOT, 'src/cli/bin.ts'));
  const file = join(dir, `input-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, input);
  return new Promise((resolve, reject) => {
    execFile(
      '/bin/sh',
      ['-c', 'f="$1" node="$2" bin="$3"; shift 3; cat "$f" | "$node" "$bin" "$@"', 'sh', file, process.execPath, bin, ...args],
      { cwd: ROOT, timeout: SPAWN_TIMEOUT_MS, env: { ...process.env, NO_COLOR: '1' } },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') reject(err);
        else resolve({ code: err ? (err.code as number) : 0, stdout, stderr });
      },
    );
  });
}

/** The data block of a written report. */
function reportData(file: string): Record<string, unknown> {
  return JSON.parse(/<script type="application\/json" id="report-data">(.*?)<\/script>/s.exec(readFileSync(file, 'utf8'))![1]!) as Record<string, unknown>;
}

describe.concurrent('a trace on a pipe (/dev/stdin)', () => {
  const trace = () => readFileSync(join(ROOT, DEMO), 'utf8');

  it('simulate prices it as it prices the file', async () => {
    const [fromPipe, fromFile] = await Promise.all([piped(trace(), 'simulate', '/dev/stdin', '--json'), cli('simulate', DEMO, '--json')]);
    expect(fromPipe.stderr).toBe('');
    expect(fromPipe.code).toBe(0);
    expect(fromPipe.stdout).toBe(fromFile.stdout);
  });

  it('report writes the report it writes for the file', async () => {
    const [pipeOut, fileOut] = [join(dir, 'piped.html'), join(dir, 'file.html')];
    const [fromPipe, fromFile] = await Promise.all([piped(trace(), 'report', '/dev/stdin', '--out', pipeOut), cli('report', DEMO, '--out', fileOut)]);
    expect(fromPipe.stderr).toBe('');
    expect(fromPipe.code).toBe(0);
    expect(fromFile.code).toBe(0);
    const { title: _a, ...pipeData } = reportData(pipeOut);
    const { title: _b, ...fileData } = reportData(fileOut);
    expect(pipeData).toEqual(fileData);
  });

  it('report keeps what the log reported (usage an importer kept), read from the pipe as from the file', async () => {
    const trace = join(dir, 'imported.jsonl');
    expect((await cli('import', 'fixtures/import/messages-log.jsonl', '--out', trace)).code).toBe(0);
    const [pipeOut, fileOut] = [join(dir, 'imported-piped.html'), join(dir, 'imported-file.html')];
    const [fromPipe, fromFile] = await Promise.all([
      piped(readFileSync(trace, 'utf8'), 'report', '/dev/stdin', '--out', pipeOut),
      cli('report', trace, '--out', fileOut),
    ]);
    expect(fromPipe.code).toBe(0);
    expect(fromFile.code).toBe(0);
    expect(reportData(fileOut).recorded).toMatchObject({ responses: 5, withUsage: 5 });
    expect(reportData(pipeOut).recorded).toEqual(reportData(fileOut).recorded);
  });

  // `-` is standard input in every Unix tool; it was "cannot open -: ENOENT".
  it('`-` is standard input, for simulate and import', async () => {
    const [dash, fromFile] = await Promise.all([piped(trace(), 'simulate', '-', '--json'), cli('simulate', DEMO, '--json')]);
    expect(dash.stderr).toBe('');
    expect(dash.code).toBe(0);
    expect(dash.stdout).toBe(fromFile.stdout);
    const log = readFileSync(join(ROOT, 'fixtures/import/messages-log.jsonl'), 'utf8');
    const [a, b] = [join(dir, 'dash.jsonl'), join(dir, 'file.jsonl')];
    const [imported, importedFile] = await Promise.all([
      piped(log, 'import', '-', '--out', a),
      cli('import', 'fixtures/import/messages-log.jsonl', '--out', b),
    ]);
    expect(imported.code).toBe(0);
    expect(importedFile.code).toBe(0);
    expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
  });

  it('a broken line on the pipe is named by its line, as in a file', async () => {
    const lines = trace().split('\n');
    lines[2] = '{"type": "user", "content": ';
    const fromPipe = await piped(lines.join('\n'), 'simulate', '/dev/stdin');
    expect(fromPipe.code).toBe(1);
    expect(fromPipe.stderr).toMatch(/^cachepoint simulate: \/dev\/stdin:3: not valid JSON/);
  });
});
