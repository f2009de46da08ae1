/**
 * The `cachepoint` CLI on the committed demo fixture: exit codes, output
 * shapes, and the one-line errors that name what is wrong and where. The cases
 * run in process through `main(argv, io)`; two smoke tests at the end spawn the
 * real executable (bin.ts) to show the process wiring: exit status, streams.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, type RunResult, spawnCli } from './run.js';

const DEMO = 'fixtures/demo.jsonl';
/** demo.jsonl has 16 assistant events, so 16 requests. */
const DEMO_REQUESTS = 16;
const KNOWN_STRATEGIES = ['cachepoint', 'none', 'envelope', 'auto', 'system_last', 'system1h_last', 'ide4', 'system2_last2', 'system_last2user'];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cachepoint-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Counts `cache_control` keys anywhere in a request (tools, system, messages, top level). */
function markers(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + markers(v), 0);
  if (typeof value !== 'object' || value === null) return 0;
  return Object.entries(value).reduce((n, [k, v]) => n + (k === 'cache_control' ? 1 : 0) + markers(v), 0);
}

function expectOk(r: RunResult): void {
  expect(r.stderr, 'stderr of a successful run').toBe('');
  expect(r.code).toBe(0);
}

describe.concurrent('cachepoint replay', () => {
  it('writes one {index, at, turn, round, request} line per request, the same bytes to --out as to stdout', async () => {
    const out = join(dir, 'demo.replay.jsonl');
    const [toFile, toStdout] = await Promise.all([cli('replay', DEMO, '--out', out), cli('replay', DEMO)]);
    expectOk(toFile);
    expect(toFile.stdout).toBe('');
    expectOk(toStdout);

    const text = readFileSync(out, 'utf8');
    // Determinism: two independent runs, one to a file, one to a pipe, give the same bytes.
    expect(text).toBe(toStdout.stdout);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.slice(0, -1).split('\n');
    expect(lines).toHaveLength(DEMO_REQUESTS);

    let previousAt = -Infinity;
    lines.forEach((line, i) => {
      const row = JSON.parse(line) as Record<string, unknown>;
      expect(Object.keys(row)).toEqual(['index', 'at', 'turn', 'round', 'request']);
      expect(row.index).toBe(i);
      expect(typeof row.at).toBe('string');
      const at = row.at as string;
      expect(at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
      expect(Number.isNaN(Date.parse(at))).toBe(false);
      expect(Date.parse(at)).toBeGreaterThanOrEqual(previousAt);
      previousAt = Date.parse(at);
      expect(Number.isInteger(row.turn) && (row.turn as number) >= 1).toBe(true);
      expect(Number.isInteger(row.round) && (row.round as number) >= 1).toBe(true);

      const request = row.request as Record<string, unknown>;
      expect(request.model).toBe('claude-sonnet-4-6');
      expect(typeof request.max_tokens).toBe('number');
      expect(Array.isArray(request.messages)).toBe(true);
      expect((request.messages as unknown[]).length).toBeGreaterThan(0);
      const n = markers(request);
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(4);
    });
    // The session has several turns: the turn numbers move forward.
    const turns = lines.map((l) => (JSON.parse(l) as { turn: number }).turn);
    expect(turns.at(-1)).toBeGreaterThan(turns[0]!);
  });
});

describe.concurrent('cachepoint render', () => {
  it('prints the snapshot form of one request: cache points ① and the fenced tail', async () => {
    const r = await cli('render', DEMO, '--request', '0');
    expectOk(r);
    expect(r.stdout).toMatch(/^claude-sonnet-4-6 · turn 1 · round 1 · /);
    expect(r.stdout).toContain('①');
    expect(r.stdout).toContain('──── tail');
    expect(r.stdout).toContain('envelope/tools/');
  });

  it('--json prints the Messages API params of that request', async () => {
    const [json, replayed] = await Promise.all([cli('render', DEMO, '--request', '3', '--json'), cli('replay', DEMO)]);
    expectOk(json);
    const params = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(params.model).toBe('claude-sonnet-4-6');
    expect(Array.isArray(params.messages)).toBe(true);
    // The same request `replay` writes as its 4th line.
    const fourth = JSON.parse(replayed.stdout.split('\n')[3]!) as { request: unknown };
    expect(params).toEqual(fourth.request);
  });

  it('--request past the end exits 1 and says how many requests the trace has', async () => {
    const r = await cli('render', DEMO, '--request', String(DEMO_REQUESTS));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--request');
    expect(r.stderr).toContain(`${DEMO_REQUESTS} requests`);
  });
});

describe.concurrent('cachepoint simulate', () => {
  it('--json parses; the cachepoint row has no bust and no rejection', async () => {
    const r = await cli('simulate', DEMO, '--json');
    expectOk(r);
    const out = JSON.parse(r.stdout) as {
      strategy: string;
      requests: unknown[];
      totals: { id: string; label: string; requests: number; busts: number; rejected: number; cost: number }[];
      engineIdeal: number;
    };
    expect(out.strategy).toBe('cachepoint');
    expect(out.requests).toHaveLength(DEMO_REQUESTS);
    const ids = out.totals.map((t) => t.id);
    for (const id of [...KNOWN_STRATEGIES, 'ideal', 'ideal_5m']) expect(ids).toContain(id);
    const engine = out.totals.find((t) => t.id === 'cachepoint')!;
    expect(engine).toMatchObject({ requests: DEMO_REQUESTS, busts: 0, rejected: 0, label: 'cachepoint (conservative)' });
    const none = out.totals.find((t) => t.id === 'none')!;
    expect(engine.cost).toBeGreaterThan(0);
    expect(engine.cost).toBeLessThan(none.cost);
    // The ideal of the engine's own requests is a lower bound of what they cost.
    expect(out.engineIdeal).toBeGreaterThan(0);
    expect(engine.cost).toBeGreaterThanOrEqual(out.engineIdeal * (1 - 1e-9));
  });

  it('prints the per-request table and the totals table with cachepoint and ideal', async () => {
    const r = await cli('simulate', DEMO);
    expectOk(r);
    const rows = r.stdout.split('\n');
    expect(rows[0]).toMatch(/^#\s+at\s+read\s+write 5m\s+write 1h\s+uncached\s+cost$/);
    expect(rows.filter((l) => /^\d+\s+\+\d/.test(l))).toHaveLength(DEMO_REQUESTS);
    expect(r.stdout).toMatch(/^cachepoint\s+cachepoint \(conservative\)\s+\$\d/m);
    expect(r.stdout).toMatch(/^ideal\s+ideal bound\s+\$\d/m);
    expect(r.stdout).toMatch(/cachepoint vs the ideal bound of its own requests: ×\d\.\d{4}/);
  });

  it('--explain prints what changed and which marker read or wrote, per request', async () => {
    const r = await cli('simulate', DEMO, '--explain');
    expectOk(r);
    const headers = r.stdout.split('\n').filter((l) => /^#\d+ \+/.test(l));
    expect(headers).toHaveLength(DEMO_REQUESTS);
    expect(r.stdout).toContain('changed:');
    expect(r.stdout).toMatch(/marker\d .*: read; found/);
    expect(r.stdout).toMatch(/usage: read \d/);
  });

  it('--policy economy runs the engine under that policy', async () => {
    const r = await cli('simulate', DEMO, '--policy', 'economy', '--json');
    expectOk(r);
    const out = JSON.parse(r.stdout) as { totals: { id: string; label: string; busts: number; rejected: number }[] };
    expect(out.totals.find((t) => t.id === 'cachepoint')).toMatchObject({ label: 'cachepoint (economy)', busts: 0, rejected: 0 });
  });

  it('--strategy with an unknown id exits 1 and lists the known strategies', async () => {
    const r = await cli('simulate', DEMO, '--strategy', 'nope');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--strategy');
    expect(r.stderr).toContain('"nope"');
    for (const id of KNOWN_STRATEGIES) expect(r.stderr).toContain(id);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe.concurrent('errors', () => {
  it('an unknown command exits 2 with the usage', async () => {
    const r = await cli('frobnicate', DEMO);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('unknown command "frobnicate"');
    expect(r.stderr).toContain('Usage: cachepoint <command>');
  });

  it('a command without TRACE prints its usage and exits 2', async () => {
    const r = await cli('replay');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: cachepoint replay TRACE');
  });

  it('a missing TRACE or --out is named on the first line, before the usage', async () => {
    const noTrace = await cli('simulate');
    expect(noTrace.stderr.split('\n')[0]).toBe('cachepoint simulate: missing TRACE (a trace file; `cachepoint import LOG` makes one from your logs)');
    expect(noTrace.stderr).toContain('Usage: cachepoint simulate TRACE');
    const noLog = await cli('import');
    expect(noLog.code).toBe(2);
    expect(noLog.stderr.split('\n')[0]).toBe('cachepoint import: missing LOG (a request/response log or a Claude Code transcript)');
    const noOut = await cli('report', DEMO);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr.split('\n')[0]).toBe('cachepoint report: missing --out FILE.html (where to write the report)');
    expect(noOut.stderr).toContain('Usage: cachepoint report TRACE --out FILE.html');
  });

  it('--version (and -v) prints the package version', async () => {
    const version = JSON.parse(readFileSync('package.json', 'utf8')).version as string;
    for (const flag of ['--version', '-v']) {
      const r = await cli(flag);
      expect(r.code, flag).toBe(0);
      expect(r.stdout).toBe(`cachepoint ${version}\n`);
    }
  });

  it('a trace whose 3rd line is broken JSON exits 1, naming the file and line 3', async () => {
    const demo = readFileSync(DEMO, 'utf8').split('\n');
    const file = join(dir, 'broken-json.jsonl');
    writeFileSync(file, [demo[0], demo[1], '{"type":"tail","content":[', ...demo.slice(3)].join('\n'));
    const r = await cli('simulate', file);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${file}:3`);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // one clear line, not a stack trace
  });

  it('a tool_result for an unknown tool_use id exits 1, naming the file, the line and the id', async () => {
    const file = join(dir, 'unknown-id.jsonl');
    writeFileSync(
      file,
      [
        {
          type: 'envelope',
          model: 'claude-sonnet-4-6',
          instructions: ['Be brief.'],
          tools: [{ name: 'Read', description: 'Reads a file', input_schema: { type: 'object', properties: { path: { type: 'string' } } } }],
        },
        { type: 'user', at: '2026-03-02T16:43:20.593Z', content: 'Read a.ts' },
        { type: 'assistant', at: '2026-03-02T16:43:22.000Z', content: [{ type: 'tool_use', id: 'toolu_01', name: 'Read', input: { path: 'a.ts' } }] },
        { type: 'tool_results', at: '2026-03-02T16:43:23.000Z', content: [{ type: 'tool_result', tool_use_id: 'toolu_99', content: 'x' }] },
      ]
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const r = await cli('replay', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:4`);
    expect(r.stderr).toContain('toolu_99');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad flag value exits 1 naming the flag', async () => {
    const [offset, offsetEq, policy] = await Promise.all([
      cli('replay', DEMO, '--pre-tail-offset', '-1'),
      cli('replay', DEMO, '--pre-tail-offset=-1'),
      cli('simulate', DEMO, '--policy', 'cheap'),
    ]);
    for (const r of [offset, offsetEq, policy]) {
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    // `-1` as a separate word is refused by the argument parser (it looks like a flag) …
    expect(offset.stderr).toContain('--pre-tail-offset');
    // … `=-1` reaches the value check.
    expect(offsetEq.stderr).toContain('--pre-tail-offset: must be an integer ≥ 0, got "-1"');
    expect(policy.stderr).toContain('--policy: must be conservative or economy, got "cheap"');
  });

  it('a TRACE that does not exist exits 1 with one line naming the file', async () => {
    const file = join(dir, 'no-such-trace.jsonl');
    const r = await cli('replay', file);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(file);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('cachepoint demo (npm start)', () => {
  it('exits 0, prints the last request rendered and the comparison table', async () => {
    const r = await cli('demo');
    expectOk(r);
    expect(r.stdout).toContain(`${DEMO_REQUESTS} requests replayed`);
    expect(r.stdout).toContain('①');
    expect(r.stdout).toContain('──── tail');
    expect(r.stdout).toMatch(/^strategy\s+label\s+cost\s+vs none\s+vs ideal\s+busts\s+rejected\s+recalls\s+recall cost$/m);
    for (const id of [...KNOWN_STRATEGIES, 'ideal_5m', 'ideal']) expect(r.stdout).toMatch(new RegExp(`^${id}\\s`, 'm'));
    // cachepoint's row: no busts, no rejected requests, no forced recalls (conservative, warm all along).
    expect(r.stdout).toMatch(/^cachepoint\s+cachepoint \(conservative\)\s+\$[\d.]+\s+×[\d.]+\s+×[\d.]+\s+0\s+0\s+0 \(0\.0\/100\)\s+\$0\.0000$/m);
    expect(r.stdout).toMatch(/cachepoint vs the ideal bound of its own requests: ×\d\.\d{4}/);
  });
});

describe.concurrent('the cachepoint executable (a real process)', () => {
  it('replay: exit 0, the same bytes on stdout as main() writes in process, nothing on stderr', async () => {
    const [spawned, inProcess] = await Promise.all([spawnCli('replay', DEMO), cli('replay', DEMO)]);
    expectOk(spawned);
    expect(spawned.stdout).toBe(inProcess.stdout);
    expect(spawned.stdout.split('\n')).toHaveLength(DEMO_REQUESTS + 1);
  });

  it('an error: exit status 1, one line on stderr, no stack trace; a usage error: exit status 2', async () => {
    const [missing, usage] = await Promise.all([spawnCli('replay', join(dir, 'absent.jsonl')), spawnCli('replay')]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('absent.jsonl');
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Usage: cachepoint replay TRACE');
  });
});
