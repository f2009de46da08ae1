/**
 * Exit status 2 is a usage error (`cachepoint --help`: "2 a usage error"). A flag without its value was exit 1
 * although it is the same mistake as a missing flag: `report TRACE` (no --out) exited 2, `report TRACE --out`
 * (--out last, its value forgotten) exited 1 (review10's test and patch, notes/review10-usage-status.*). A value
 * the command refuses stays exit 1, and so does one parseArgs calls ambiguous (`--pre-tail-offset -1`: cli.test.ts pins it).
 */
import { describe, expect, it } from 'vitest';
import { cli } from './run.js';

const DEMO = 'fixtures/demo.jsonl';

describe.concurrent('exit status of a malformed command line', () => {
  it.each([
    [['report', DEMO, '--out'], "Option '-o, --out <value>' argument missing"],
    [['replay', DEMO, '--out'], "Option '-o, --out <value>' argument missing"],
    [['simulate', DEMO, '--strategy'], "Option '-s, --strategy <value>' argument missing"],
    [['render', DEMO, '--json=yes'], "Option '--json' does not take an argument"],
    [['report', DEMO], 'missing --out FILE.html'],
  ])('%j: exit 2, one line naming the flag', async (args, says) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toContain(says);
  });

  // A misspelled flag is the CLI's `tial`: the library names the nearest option (docs/drop-in.md), so does the CLI.
  // parseArgs' own text named neither and told the user to quote it as a positional ('-- "--polcy"', unbalanced).
  it.each([
    [['simulate', DEMO, '--polcy', 'economy'], 'cachepoint simulate: --polcy: unknown option (did you mean --policy?); see cachepoint simulate --help'],
    [['render', DEMO, '--keep-turn', '2'], 'cachepoint render: --keep-turn: unknown option (did you mean --keep-turns?); see cachepoint render --help'],
    [['import', DEMO, '--form', 'claude-code'], 'cachepoint import: --form: unknown option (did you mean --from?); see cachepoint import --help'],
    [['replay', DEMO, '--ttl', '1h'], 'cachepoint replay: --ttl: unknown option; see cachepoint replay --help'],
    [['report', DEMO, '-x'], 'cachepoint report: -x: unknown option; see cachepoint report --help'],
  ])('%j: an unknown flag is named, with the nearest known one, exit 2', async (args, says) => {
    const r = await cli(...args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`${says}\n`);
  });

  it('a value that looks like a flag is still exit 1 (parseArgs: "argument is ambiguous")', async () => {
    const r = await cli('replay', DEMO, '--pre-tail-offset', '-1');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Option '--pre-tail-offset' argument is ambiguous");
  });

  it('a value the command refuses is still exit 1', async () => {
    const r = await cli('simulate', DEMO, '--policy', 'cheap');
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('cachepoint simulate: --policy: must be conservative or economy, got "cheap"\n');
  });
});
