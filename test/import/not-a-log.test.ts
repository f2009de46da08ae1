/**
 * `cachepoint import` given a file that is not a log it reads: a cachepoint trace (the user's likeliest mistake:
 * it is what import writes) is recognised and the user is sent to the commands that read it; anything else names
 * the formats import knows. Exit 1 (bad input), one line, and --out is left as it was.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importLog } from '../../src/import/formats.js';
import { importError } from './import-error.js';
import { cli, cliIn } from '../cli/run.js';

const dir = mkdtempSync(join(tmpdir(), 'cachepoint-not-a-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TRACE_HINT = 'already a cachepoint trace (its first line is an envelope event): nothing to import; read it directly with simulate, replay or report';

describe('import of a cachepoint trace', { timeout: 120_000 }, () => {
  it('says it is already a trace, with or without --from, at line 1 (a BOM and CRLF too)', () => {
    const trace = readFileSync('fixtures/demo.jsonl', 'utf8');
    for (const from of [undefined, 'messages-log', 'claude-code']) {
      const err = importError(() => importLog(trace, 'demo.jsonl', from));
      expect(err.message, String(from)).toBe(`demo.jsonl:1: ${TRACE_HINT}`);
      expect(err.line).toBe(1);
    }
    const windows = `\uFEFF${trace.replace(/\n/g, '\r\n')}`;
    expect(importError(() => importLog(windows, 'w.jsonl')).message).toBe(`w.jsonl:1: ${TRACE_HINT}`);
    // Blank lines first: the envelope is the first record.
    expect(importError(() => importLog(`\n\n${trace}`, 'b.jsonl')).message).toBe(`b.jsonl:3: ${TRACE_HINT}`);
  });

  it('the CLI: a bundled fixture and a trace import wrote; exit 1, one line, --out not created', async () => {
    const imported = join(dir, 'imported.jsonl');
    const first = await cli('import', 'fixtures/import/messages-log.jsonl', '--out', imported);
    expect(first.code).toBe(0);
    for (const file of ['fixtures/demo.jsonl', imported]) {
      const out = join(dir, 'again.jsonl');
      const r = await cli('import', file, '--out', out);
      expect(r.code, file).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`cachepoint import: ${file}:1: ${TRACE_HINT}\n`);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe('import of something else names the formats it knows', () => {
  it('a first line that is not JSON (a CSV, a pretty-printed JSON file)', async () => {
    writeFileSync(join(dir, 'log.csv'), 'time,model,tokens\n2026-01-01,claude,12\n');
    writeFileSync(join(dir, 'pretty.json'), '{\n  "request": {}\n}\n');
    for (const file of ['log.csv', 'pretty.json']) {
      const r = await cliIn(dir, 'import', file);
      expect(r.code, file).toBe(1);
      expect(r.stderr, file).toMatch(new RegExp(`^cachepoint import: ${file.replace('.', '\\.')}:1: not valid JSON( at column \\d+)? \\(.*\\); `));
      expect(r.stderr, file).toContain('each line must be one JSON object: import reads JSON Lines logs (messages-log, claude-code)\n');
    }
  });

  it('a later line that is not JSON keeps the plain message (the format was recognised)', () => {
    const first = readFileSync('fixtures/import/messages-log.jsonl', 'utf8').split('\n')[0]!;
    expect(importError(() => importLog(`${first}\nnope\n${first}\n`, 'm.jsonl')).message).toMatch(
      /^m\.jsonl:2: not valid JSON( at column \d+)? \(.*\); each line must be one JSON object$/,
    );
  });

  it('a JSON line of no known shape, and an unknown --from', () => {
    expect(importError(() => importLog('{"hello": 1}', 'c.jsonl')).message).toBe(
      'c.jsonl:1: not a format I know (messages-log, claude-code); name it with --from',
    );
    expect(() => importLog('{}', 'd', 'csv')).toThrow('--from: unknown format "csv"; known: messages-log, claude-code');
  });
});
