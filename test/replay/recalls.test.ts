import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { RecallTracker } from '../../src/replay/recalls.js';
import { RECALL_ROUND_MS, replayAll } from '../../src/replay/replay.js';
import { formatTotals } from '../../src/sim/format.js';
import { callTargets } from '../../src/toolcache/targets.js';
import { fileTag } from '../../src/toolcache/policy.js';
import { parseTrace } from '../../src/trace/reader.js';
import { recall } from '../../src/render/hide-block.js';
import { payloadAsContent } from '../../src/recall/recall-tool.js';
import { oneTurnTrace } from '../helpers/one-turn-trace.js';

const text = (seed: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(4)}\t${seed} line ${i} computes the ${seed} total`).join('\n');

const session = oneTurnTrace;

const A = '/repo/src/a.ts';
const readA: [string, Record<string, unknown>, string] = ['Read', { file_path: A }, text('alpha', 80)];
const grep = (k: number): [string, Record<string, unknown>, string] => ['Grep', { pattern: `p${k}`, path: '/repo/src' }, text(`grep${k}`, 30)];
const editA: [string, Record<string, unknown>, string] = [
  'Edit',
  { file_path: A, old_string: 'alpha line 3', new_string: 'alpha line three' },
  'The file was updated.',
];

describe('call targets', () => {
  it('names files under path-like keys (with an extension), writes by name or policy, and the exact call', () => {
    expect(callTargets('Read', { file_path: './src//a.ts' }).files).toEqual(['src/a.ts']);
    expect(callTargets('Grep', { pattern: 'x', path: '/repo/src' }).files).toEqual([]);
    expect(callTargets('Edit', { file_path: A, old_string: 'a', new_string: 'b' })).toMatchObject({ kind: 'write', overwrite: false });
    expect(callTargets('Write', { file_path: A, content: 'x' })).toMatchObject({ kind: 'write', overwrite: true });
    expect(callTargets('TodoWrite', { todos: [] })).toMatchObject({ kind: 'read', files: [] });
    expect(callTargets('Bash', { b: 1, a: 2 }).key).toBe(callTargets('Bash', { a: 2, b: 1 }).key);
    const policies = { save_user: { writes: ['user'], tags: (a: { id: string }) => [`user:${a.id}`] } } as never;
    expect(callTargets('save_user', { id: '42' }, policies)).toMatchObject({ kind: 'write', tags: ['user:42'] });
    expect(
      callTargets('Read', { file_path: 'b.ts' }, {
        Read: { cacheable: true, ttl: { turns: 5 }, reads: ['file'], tags: (a: { file_path: string }) => [fileTag(a.file_path)] },
      } as never).files,
    ).toEqual(['b.ts']);
  });
});

describe('forced recalls in a replay', () => {
  it('economy: an Edit of a file read three rounds earlier and pruned since inserts one recall round that returns the Read byte-identical', async () => {
    const trace = session([readA, grep(1), grep(2), grep(3), editA]);
    const reqs = await replayAll(parseTrace(trace), { policy: 'economy', recalls: true, prune: { keepRounds: 1, minChars: 300, reuse: false } } as never);
    const extra = reqs.filter((r) => r.forced);
    expect(extra).toHaveLength(1);
    const [f] = extra[0]!.forced!;
    expect(f).toMatchObject({ path: 'turns/1/rounds/1/results/toolu_0', removedBy: 'economy', by: 'Edit', target: A });
    // Six trace requests plus the extra one, which follows its recall round by RECALL_ROUND_MS.
    expect(reqs).toHaveLength(7);
    const i = reqs.indexOf(extra[0]!);
    expect(extra[0]!.at - reqs[i - 1]!.at).toBe(RECALL_ROUND_MS);
    // The recall round in the extra request: a recall call and the payload exactly as it was.
    const msgs = extra[0]!.request.messages;
    expect(JSON.stringify(msgs.at(-2)!.content)).toContain('"name":"recall"');
    const result = (msgs.at(-1)!.content as { type: string; content?: unknown }[]).find((b) => b.type === 'tool_result')!;
    expect(result.content).toBe(readA[2]);
    expect(payloadAsContent(recall(extra[0]!.rendered.state, f!.path))).toBe(readA[2]);
    expect(extra[0]!.recallOutputTokens).toBeGreaterThan(0);
  });

  it('conservative forces none while warm; without recalls the replay is the trace', async () => {
    const trace = session([readA, grep(1), grep(2), grep(3), editA]);
    expect((await replayAll(parseTrace(trace), { recalls: true })).filter((r) => r.forced)).toHaveLength(0);
    expect(await replayAll(parseTrace(trace), { policy: 'economy', prune: { keepRounds: 1 } })).toHaveLength(6);
  });

  it('re-reading a file after it was edited is a refresh, not a forced recall; re-reading it unchanged is one', async () => {
    const stale = session([readA, grep(1), editA, grep(2), readA]);
    const opts = { policy: 'economy', recalls: true, prune: { keepRounds: 1, minChars: 300, reuse: false } } as never;
    const r1 = (await replayAll(parseTrace(stale), opts)).flatMap((r) => r.forced ?? []);
    // The Edit itself needed the Read (pruned two rounds before); the re-read after it needs nothing.
    expect(r1.map((f) => f.by)).toEqual(['Edit']);
    const unchanged = session([readA, grep(1), grep(2), readA]);
    const r2 = (await replayAll(parseTrace(unchanged), opts)).flatMap((r) => r.forced ?? []);
    expect(r2.map((f) => [f.by, f.path])).toEqual([['Read', 'turns/1/rounds/1/results/toolu_0']]);
  });

  it('an identical re-run counts when nothing was written since, not after a fix', async () => {
    const test: [string, Record<string, unknown>, string] = ['Bash', { command: 'npm test' }, text('FAIL test', 40)];
    const opts = { policy: 'economy', recalls: true, prune: { keepRounds: 1, minChars: 300, reuse: false } } as never;
    const again = (await replayAll(parseTrace(session([test, grep(1), grep(2), test])), opts)).flatMap((r) => r.forced ?? []);
    expect(again.map((f) => f.target)).toEqual(['Bash (same arguments)']);
    const afterFix = (await replayAll(parseTrace(session([readA, test, grep(1), editA, grep(2), test])), opts)).flatMap((r) => r.forced ?? []);
    expect(afterFix.map((f) => f.by)).toEqual(['Edit']);
  });

  it('a recalled payload is not recalled again while its copy is visible', async () => {
    const editA2: [string, Record<string, unknown>, string] = [
      'Edit',
      { file_path: A, old_string: 'alpha line 4', new_string: 'alpha line four' },
      'The file was updated.',
    ];
    const opts = { policy: 'economy', recalls: true, prune: { keepRounds: 2, minChars: 300, reuse: false } } as never;
    const forced = (await replayAll(parseTrace(session([readA, grep(1), grep(2), grep(3), editA, editA2])), opts)).flatMap((r) => r.forced ?? []);
    expect(forced.map((f) => f.path)).toEqual(['turns/1/rounds/1/results/toolu_0']);
    expect(
      new RecallTracker().needs({ turns: [], hidden: {}, summaries: [] } as never, [
        { type: 'tool_use', name: 'Edit', input: { file_path: A, old_string: 'x' } },
      ]),
    ).toEqual([]);
  });

  it("compareTrace prices the inserted rounds into cachepoint's cost and reports them per 100 requests", async () => {
    const trace = session([readA, grep(1), grep(2), grep(3), editA]);
    const load = () => parseTrace(trace);
    const withRecalls = await compareTrace(load, { policy: 'economy', prune: { keepRounds: 1, minChars: 300, reuse: false } } as never);
    const without = await compareTrace(load, { policy: 'economy', prune: { keepRounds: 1, minChars: 300, reuse: false }, recalls: false } as never);
    const r = withRecalls.recalls;
    expect(r).toMatchObject({ count: 1, rounds: 1, traceRequests: 6, byReason: { economy: 1 } });
    expect(r.per100).toBeCloseTo(100 / 6);
    expect(r.cost).toBeGreaterThan(r.outputCost);
    const cp = withRecalls.summaries.find((s) => s.id === 'cachepoint')!;
    const cp0 = without.summaries.find((s) => s.id === 'cachepoint')!;
    expect(cp.recalls).toEqual(r);
    expect(cp.cost).toBeGreaterThan(cp0.cost);
    expect(cp0.recalls!.count).toBe(0);
    expect(formatTotals(withRecalls.summaries)).toMatch(/cachepoint \(economy\).*1 \(16\.7\/100\)/);
  });
});
