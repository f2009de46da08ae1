/**
 * A warm prune batch re-writes everything after its first change, so older
 * payloads there that nothing targets any more (p = 0) ride along for free
 * (src/render/prune.ts), even when their own earlier weighing declined; so do
 * payloads the gate would no longer keep (a file read long ago whose chance of
 * being needed has decayed).
 */
import { describe, expect, it } from 'vitest';
import { payloadAsContent } from '../../src/recall/recall-tool.js';
import { recall } from '../../src/render/hide-block.js';
import { reuseOf } from '../../src/render/reuse.js';
import { replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import { type Call, lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

const A = '/repo/src/a.ts';
const B = '/repo/src/b.ts';
const READ_B = 'turns/1/rounds/7/results/toolu_6';
const READ_A = 'turns/1/rounds/8/results/toolu_7';
const CALLS: Call[] = [
  ...['pwd', 'git status', 'git log -1', 'whoami', 'date', 'uname'].map((command): Call => ['Bash', { command }, 'ok']),
  ['Read', { file_path: B }, lines('bee', 1000)],
  ['Read', { file_path: A }, lines('ay', 20)],
  ['Read', { file_path: '/repo/src/c.ts' }, lines('cee', 200)],
  // A is overwritten: its Read holds nothing a later call needs, but pruning it alone re-writes c.ts's text.
  ['Write', { file_path: A, content: 'new a' }, 'File written.'],
  ['Bash', { command: 'ls' }, 'a b'],
  // B is overwritten: its large Read pays for the re-write from B on, and A's Read is in that stretch.
  ['Write', { file_path: B, content: 'new b' }, 'File written.'],
  ['Bash', { command: 'ls -l' }, 'a b c'],
  ['Bash', { command: 'ls -la' }, 'a b c d'],
];

describe('payloads nothing targets ride along with a warm prune batch', () => {
  it('prunes the superseded Read whose own weighing declined, in the batch that re-writes it anyway; no recall forced', async () => {
    const reqs = await replayAll(parseTrace(oneTurnTrace(CALLS)), { policy: 'economy', recalls: true });
    const prunedAt = (path: string) => reqs.findIndex((r) => r.rendered.decisions.some((d) => d.type === 'prune' && d.path === path));
    // A's Read was superseded before B's and not pruned then (the re-write of c.ts's text was dearer).
    expect(prunedAt(READ_B)).toBeGreaterThan(0);
    expect(prunedAt(READ_A)).toBe(prunedAt(READ_B));
    const state = reqs.at(-1)!.rendered.state;
    expect(reuseOf(state, READ_A).p).toBe(0);
    expect(state.hidden['turns/1/rounds/9/results/toolu_8']).toBeUndefined();
    expect(reqs.filter((r) => r.forced)).toHaveLength(0);
    expect(payloadAsContent(recall(state, READ_A))).toBe(lines('ay', 20));
  });

  it('conservative prunes nothing while warm', async () => {
    const reqs = await replayAll(parseTrace(oneTurnTrace(CALLS)), {});
    expect(Object.keys(reqs.at(-1)!.rendered.state.hidden)).toEqual([]);
  });
});

// A file read long ago whose chance of being needed has decayed: the gate would let it go now, but removing it alone
// would re-write the prefix after it. When a batch re-writes that stretch anyway, it rides along.
const G = '/repo/src/g.ts';
const F = '/repo/src/f.ts';
const READ_G = 'turns/1/rounds/1/results/toolu_0';
const READ_F = 'turns/1/rounds/2/results/toolu_1';
const DECAYED: Call[] = [
  ['Read', { file_path: G }, lines('gee', 2500)],
  ['Read', { file_path: F }, lines('eff', 1500)],
  ...Array.from({ length: 40 }, (_, i): Call => ['Bash', { command: `echo step ${i}` }, `step ${i}`]),
  // G is overwritten: its Read holds nothing a later call needs, and it is large enough to pay for re-writing F's text.
  ['Write', { file_path: G, content: 'new g' }, 'File written.'],
  ['Bash', { command: 'ls' }, 'f g'],
  ['Bash', { command: 'ls -l' }, 'f g h'],
];

describe("a file's text whose chance of being needed has decayed rides along too", () => {
  it('prunes the old Read of f.ts in the batch that re-writes it for g.ts, with its p in the decision; no recall forced', async () => {
    const reqs = await replayAll(parseTrace(oneTurnTrace(DECAYED)), { policy: 'economy', recalls: true });
    const decision = (path: string) =>
      reqs.flatMap((r, i) => r.rendered.decisions.map((d) => ({ i, d }))).find(({ d }) => d.type === 'prune' && d.path === path);
    const g = decision(READ_G);
    const f = decision(READ_F);
    expect(g).toBeDefined();
    // Kept at its first weighing (the file had just been read), pruned with G's batch, knowingly: p and the expected recall are in the plan.
    expect(reqs.some((r) => r.rendered.decisions.some((d) => d.type === 'defer' && d.path === READ_F))).toBe(true);
    expect(f?.i).toBe(g!.i);
    const price = f!.d.type === 'prune' ? f!.d.price : undefined;
    expect(price?.reuse?.p).toBeGreaterThan(0);
    expect(price?.reuse?.why).toContain('newest text of');
    expect(reqs.filter((r) => r.forced)).toHaveLength(0);
    expect(payloadAsContent(recall(reqs.at(-1)!.rendered.state, READ_F))).toBe(lines('eff', 1500));
  });
});
