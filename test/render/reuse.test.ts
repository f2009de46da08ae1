import { describe, expect, it } from 'vitest';
import { replayAll } from '../../src/replay/replay.js';
import { render } from '../../src/render/render.js';
import { recall } from '../../src/render/hide-block.js';
import { REUSE_MODEL, reuseOf } from '../../src/render/reuse.js';
import { payloadAsContent } from '../../src/recall/recall-tool.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { parseTrace } from '../../src/trace/reader.js';
import { type Call, lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

const trace = oneTurnTrace;

const A = '/repo/src/ledger.ts';
const grep = (k: number): Call => ['Grep', { pattern: `p${k}`, path: '/repo/src' }, lines(`grep${k}`, 30)];
const bash: Call = ['Bash', { command: 'npm test' }, lines('FAIL test', 40)];
const edit: Call = ['Edit', { file_path: A, old_string: 'ledger line 3', new_string: 'ledger line three' }, 'The file was updated.'];

describe('the re-use-aware prune gate', () => {
  it('an agent edits a file it read three rounds earlier: economy keeps the Read visible until the Edit, and the plan says why', async () => {
    const read: Call = ['Read', { file_path: A }, lines('ledger', 60)];
    const reqs = await replayAll(parseTrace(trace([read, grep(1), bash, grep(2), edit])), { policy: 'economy', recalls: true });
    expect(reqs.filter((r) => r.forced)).toHaveLength(0);
    const path = 'turns/1/rounds/1/results/toolu_0';
    // The request the Edit answers (round 5) shows the Read in full.
    const beforeEdit = reqs[4]!;
    expect(beforeEdit.round).toBe(5);
    expect(beforeEdit.rendered.state.hidden[path]).toBeUndefined();
    expect(JSON.stringify(beforeEdit.request)).toContain('ledger line 59 sums');
    // The gate weighed it when it left the window (request 3) and kept it: a 'defer' naming re-use.
    const kept = reqs[2]!.rendered.decisions.find((d) => d.path === path)!;
    expect(kept).toMatchObject({ type: 'defer', price: { reuse: { p: expect.any(Number) } } });
    expect(kept.type === 'defer' && kept.why).toMatch(/^re-use: p=0\.\d\d \(newest text of \/repo\/src\/ledger\.ts, touched 2 requests ago\)/);
    // The one-shot lookups went early.
    const pruned = reqs.flatMap((r) => r.rendered.decisions.filter((d) => d.type === 'prune').map((d) => d.path));
    expect(pruned).toEqual(expect.arrayContaining(['turns/1/rounds/4/results/toolu_3']));
  });

  it('a huge Read is pruned knowingly: the decision carries p and the expected recall, and the replay charges the recall byte-identical', async () => {
    const huge: Call = ['Read', { file_path: A }, lines('ledger', 4000)];
    // A long session ahead (40 requests): 35k tokens read by each of them is worth more than a likely recall.
    const reqs = await replayAll(parseTrace(trace([huge, grep(1), bash, grep(2), edit])), { policy: 'economy', recalls: true, expectedRemaining: 40 });
    const path = 'turns/1/rounds/1/results/toolu_0';
    const decision = reqs.flatMap((r) => r.rendered.decisions).find((d) => d.path === path && d.type === 'prune')!;
    expect(decision.type === 'prune' && decision.price?.reuse?.p).toBeGreaterThan(0.3);
    expect(decision.type === 'prune' && decision.price!.reuse!.expectedRecall).toBeLessThan(decision.type === 'prune' ? decision.price!.saving : 0);
    const extra = reqs.filter((r) => r.forced);
    expect(extra.map((r) => r.forced!.map((f) => f.path))).toEqual([[path]]);
    expect(payloadAsContent(recall(extra[0]!.rendered.state, path))).toBe(huge[2]);
  });

  it('a Read superseded by a newer Read of the same file gets one more weighing while warm, and goes with nothing forced', async () => {
    const read: Call = ['Read', { file_path: A }, lines('ledger', 300)];
    const reread: Call = ['Read', { file_path: A }, lines('ledger', 300).replace('ledger line 3 ', 'ledger line three ')];
    const calls = [read, grep(1), edit, reread, grep(2), edit, grep(3)];
    const reqs = await replayAll(parseTrace(trace(calls)), { policy: 'economy', recalls: true, expectedRemaining: 40 });
    const first = 'turns/1/rounds/1/results/toolu_0';
    // Kept when it left the window (the file was being edited), pruned once the re-read replaced it (round 4 → request 5).
    expect(reqs[2]!.rendered.decisions.find((d) => d.path === first)).toMatchObject({ type: 'defer' });
    const pruned = reqs.findIndex((r) => r.rendered.decisions.some((d) => d.type === 'prune' && d.path === first));
    expect(pruned).toBe(4);
    expect(reqs.filter((r) => r.forced)).toHaveLength(0);
  });

  it('conservative forces none while warm, with or without re-use', async () => {
    const read: Call = ['Read', { file_path: A }, lines('ledger', 60)];
    for (const reuse of [true, false]) {
      const reqs = await replayAll(parseTrace(trace([read, grep(1), bash, grep(2), grep(3), grep(4), grep(5), grep(6), grep(7), grep(8), edit])), {
        recalls: true,
        prune: { reuse },
      });
      expect(reqs.filter((r) => r.forced)).toHaveLength(0);
    }
  });

  it('estimates: superseded reads and outputs made stale by a write are 0, a file being worked on is likely, a one-shot lookup is not', () => {
    let s: TimelineState = startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: ['x'], tools: [] }), 'go');
    const round = (id: string, name: string, input: Record<string, unknown>, content = 'out') => {
      s = appendResponse(s, [{ type: 'tool_use', id, name, input }]);
      s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: id, content }]);
    };
    round('r1', 'Read', { file_path: 'a.ts' });
    round('t1', 'Bash', { command: 'npm test' });
    round('g1', 'Grep', { pattern: 'x', path: 'src' });
    round('r2', 'Read', { file_path: 'a.ts' });
    round('e1', 'Edit', { file_path: 'b.ts', old_string: 'x', new_string: 'y' });
    const at = (id: string, r: number) => reuseOf(s, `turns/1/rounds/${r}/results/${id}`);
    expect(at('r1', 1).p).toBe(0);
    expect(at('t1', 2).p).toBe(0);
    expect(at('t1', 2).why).toMatch(/written since/);
    expect(at('g1', 3).p).toBe(0);
    expect(at('r2', 4).p).toBeCloseTo(REUSE_MODEL.FILE_BASE + REUSE_MODEL.FILE_PEAK * Math.exp(-2 / REUSE_MODEL.FILE_DECAY));
    round('g2', 'Grep', { pattern: 'y', path: 'src' });
    expect(at('g2', 6).p).toBeLessThanOrEqual(REUSE_MODEL.KEY_PEAK);
  });

  it('with prune.reuse off, economy prunes by the windows alone (the Read goes, the Edit forces a recall)', async () => {
    const read: Call = ['Read', { file_path: A }, lines('ledger', 60)];
    const reqs = await replayAll(parseTrace(trace([read, grep(1), bash, grep(2), edit])), { policy: 'economy', recalls: true, prune: { reuse: false } });
    expect(reqs.flatMap((r) => r.forced ?? []).map((f) => f.by)).toEqual(['Edit']);
    // Render-level: the same state renders the same bytes (the gate is deterministic).
    const last = reqs.at(-1)!.rendered;
    expect(JSON.stringify(render(reqs.at(-2)!.rendered.state, { now: last.at, policy: 'economy', prune: { reuse: false } }).stream.length)).toBeTruthy();
  });
});
