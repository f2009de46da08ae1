import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { floorRequests, pruneFloor } from '../../src/replay/floor.js';
import { maskedRecalls } from '../../src/replay/masked-recalls.js';
import { replayAll } from '../../src/replay/replay.js';
import { idealBound } from '../../src/sim/ideal.js';
import { parseTrace } from '../../src/trace/reader.js';
import { lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

const body = (seed: string, n: number) => lines(seed, n, 'computes the');
const session = oneTurnTrace;

const A = '/repo/src/a.ts';
const grep = (k: number): [string, Record<string, unknown>, string] => ['Grep', { pattern: `p${k}`, path: '/repo/src' }, body(`grep${k}`, 30)];
// Read a.ts, twelve one-shot lookups, then an Edit of a.ts: its Read is the 13th newest result by then.
const trace = session([
  ['Read', { file_path: A }, body('alpha', 80)],
  ...Array.from({ length: 12 }, (_, k) => grep(k)),
  ['Edit', { file_path: A, old_string: 'alpha line 3', new_string: 'alpha line three' }, 'The file was updated.'],
]);

describe('prune floor', () => {
  it('shows each bulky tool result once, in the request right after it, and a note from then on', async () => {
    const plain = await replayAll(parseTrace(trace, 't'), { plain: true });
    const requests = plain.map((r) => ({ at: r.at, params: r.request }));
    const floor = floorRequests(requests);
    const results = (i: number) =>
      floor[i]!.params.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result')));
    // Request 1 answers the Read: its result is the newest message, in full.
    expect(JSON.stringify(results(1)[0])).toContain('alpha line 79');
    // From request 2 on it is a note; the short Edit result is never replaced.
    expect(JSON.stringify(results(2)[0])).toMatch(/\[pruned: tool result, [\d,]+ chars; recall\(/);
    expect(JSON.stringify(results(14).at(-1))).toContain('The file was updated.');
    // Cheaper than the clairvoyant cache over the full history, dearer than nothing.
    const cost = pruneFloor(requests);
    expect(cost).toBeGreaterThan(0);
    expect(cost).toBeLessThan(idealBound(requests).ideal.cost);
  });

  it('is below what economy costs on the same session (it keeps nothing longer and charges no recall)', async () => {
    const plain = await replayAll(parseTrace(trace, 't'), { plain: true });
    const economy = await compareTrace(() => parseTrace(trace, 't'), { policy: 'economy' });
    const ours = economy.summaries.find((s) => s.id === 'cachepoint')!;
    expect(pruneFloor(plain.map((r) => ({ at: r.at, params: r.request })))).toBeLessThanOrEqual(ours.cost);
  });
});

describe('masked recalls', () => {
  it('counts the Edit whose Read a mask-all-but-10 peer dropped, and none when it keeps enough', async () => {
    const plain = await replayAll(parseTrace(trace, 't'), { plain: true });
    expect(maskedRecalls(plain, 10)).toMatchObject({ count: 1 });
    expect(maskedRecalls(plain, 20)).toMatchObject({ count: 0 });
  });
});
