import { describe, expect, it } from 'vitest';
import { payloadAsContent } from '../../src/recall/recall-tool.js';
import { recall } from '../../src/render/hide-block.js';
import { reuseOf } from '../../src/render/reuse.js';
import { replayAll } from '../../src/replay/replay.js';
import { parseTrace } from '../../src/trace/reader.js';
import { type Call, lines, oneTurnTrace } from '../helpers/one-turn-trace.js';

const A = '/repo/src/ledger.ts';
const read: Call = ['Read', { file_path: A }, lines('ledger', 60)];
const grep = (k: number): Call => ['Grep', { pattern: `p${k}`, path: '/repo/src' }, lines(`grep${k}`, 30)];
const edit: Call = ['Edit', { file_path: A, old_string: 'ledger line 3', new_string: 'ledger line three' }, 'The file was updated.'];
const FIRST = 'turns/1/rounds/1/results/toolu_0';
const SECOND = 'turns/1/rounds/3/results/toolu_2';
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe('duplicate payloads (economy)', () => {
  it('a re-read of an unchanged file is sent once: the second result points at the first, for free, and forces no recall', async () => {
    const reqs = await replayAll(parseTrace(oneTurnTrace([read, grep(1), read, grep(2), edit])), { policy: 'economy', recalls: true });
    // Request 4 (round 4) is the first to carry the second Read's result: as a note naming the visible copy.
    const r = reqs[3]!;
    const hidden = r.rendered.state.hidden[SECOND]!;
    expect(hidden).toMatchObject({ reason: 'economy', sameAs: FIRST });
    expect(hidden.note).toContain(`identical to ${FIRST}, shown above`);
    expect(hidden.note).toContain(`recall("${SECOND}")`);
    expect(r.rendered.decisions).toContainEqual(expect.objectContaining({ type: 'prune', path: SECOND, reason: 'economy' }));
    expect(count(JSON.stringify(r.request), 'ledger line 59 sums')).toBe(1);
    // Free: the duplicate was never in an earlier request, so no cached byte changed.
    expect(reqs[2]!.rendered.stream.some((b) => b.path === SECOND)).toBe(false);
    // The previous request's last cache write is read back whole.
    expect(r.rendered.plan.read?.tokens).toBe(reqs[2]!.rendered.plan.writes.at(-1)!.prefixTokens);
    // The Edit needs the file's newest text: the duplicate, visible through its copy. No forced recall.
    expect(reqs.filter((x) => x.forced)).toHaveLength(0);
    // Recall of the duplicate returns its own payload byte-identical.
    expect(payloadAsContent(recall(reqs.at(-1)!.rendered.state, SECOND))).toBe(read[2]);
  });

  it('the copy carries its duplicate’s chance of being needed', async () => {
    const reqs = await replayAll(parseTrace(oneTurnTrace([read, grep(1), read, grep(2), grep(3)])), { policy: 'economy' });
    const state = reqs.at(-1)!.rendered.state;
    expect(state.hidden[SECOND]?.sameAs).toBe(FIRST);
    const est = reuseOf(state, FIRST);
    expect(est.p).toBeGreaterThan(0.3);
    expect(est.why).toContain(`via its duplicate ${SECOND}`);
  });

  it('conservative sends duplicates as they are', async () => {
    const reqs = await replayAll(parseTrace(oneTurnTrace([read, grep(1), read, grep(2)])), {});
    expect(reqs.at(-1)!.rendered.state.hidden[SECOND]).toBeUndefined();
    expect(count(JSON.stringify(reqs.at(-1)!.request), 'ledger line 59 sums')).toBe(2);
  });

  it('a partial re-read contained in a visible read of the same file points at it, when keeping that read is cheaper', async () => {
    const full = lines('ledger', 60);
    // Lines 11–50 of the same file: the same numbered lines, byte for byte.
    const part = full.split('\n').slice(10, 50).join('\n');
    const partial: Call = ['Read', { file_path: A, offset: 11, limit: 40 }, part];
    const reqs = await replayAll(parseTrace(oneTurnTrace([read, grep(1), partial, grep(2), edit])), { policy: 'economy', recalls: true });
    const state = reqs.at(-1)!.rendered.state;
    const hidden = state.hidden[SECOND]!;
    expect(hidden).toMatchObject({ reason: 'economy', sameAs: FIRST });
    expect(hidden.note).toContain(`part of ${FIRST}, shown above`);
    // Free: it never was in an earlier request; the text is sent once (in the full read).
    expect(reqs[2]!.rendered.stream.some((b) => b.path === SECOND)).toBe(false);
    expect(count(JSON.stringify(reqs[3]!.request), 'ledger line 30 sums')).toBe(1);
    // The full read carries the partial's chance of being needed, so the Edit finds the text: no forced recall.
    expect(reuseOf(state, FIRST).why).toContain(`via its duplicate ${SECOND}`);
    expect(reqs.filter((x) => x.forced)).toHaveLength(0);
    expect(payloadAsContent(recall(state, SECOND))).toBe(part);
  });

  it('a partial re-read of another file, or a text not contained, is sent as it is', async () => {
    const other: Call = ['Read', { file_path: '/repo/src/other.ts', offset: 11, limit: 40 }, lines('ledger', 60).split('\n').slice(10, 50).join('\n')];
    const changed: Call = ['Read', { file_path: A, offset: 11, limit: 40 }, lines('ledger', 60, 'adds the').split('\n').slice(10, 50).join('\n')];
    for (const second of [other, changed]) {
      const reqs = await replayAll(parseTrace(oneTurnTrace([read, grep(1), second, grep(2)])), { policy: 'economy' });
      expect(reqs.at(-1)!.rendered.state.hidden[SECOND]).toBeUndefined();
    }
  });

  it('a small partial re-read of a large read that nothing else targets is pointed at it: keeping the read costs nothing extra', async () => {
    // The container's own chance stays above 0 (the same full Read may be asked again), so the gate would not
    // weigh it again while warm: it stays either way, and the partial's text is sent once.
    const big: Call = ['Read', { file_path: A }, lines('ledger', 400)];
    const small: Call = ['Read', { file_path: A, offset: 11, limit: 10 }, lines('ledger', 400).split('\n').slice(10, 20).join('\n')];
    const reqs = await replayAll(parseTrace(oneTurnTrace([big, grep(1), grep(2), grep(3), small, grep(4)])), { policy: 'economy' });
    expect(reqs.at(-1)!.rendered.state.hidden['turns/1/rounds/5/results/toolu_4']).toMatchObject({ sameAs: FIRST });
  });

  it('a small partial re-read after an edit is sent as it is: the stale full read is pruned instead, which costs less', async () => {
    // After the Edit nothing targets the full read any more (a re-run needs a fresh result, and the partial read is
    // the file's newest text), so the gate weighs it again and prunes it; pointing at it would keep it visible.
    const big: Call = ['Read', { file_path: A }, lines('ledger', 400)];
    const small: Call = ['Read', { file_path: A, offset: 11, limit: 10 }, lines('ledger', 400).split('\n').slice(10, 20).join('\n')];
    const reqs = await replayAll(parseTrace(oneTurnTrace([big, edit, grep(1), small, grep(2), grep(3)])), { policy: 'economy' });
    const state = reqs.at(-1)!.rendered.state;
    expect(state.hidden['turns/1/rounds/4/results/toolu_3']).toBeUndefined();
    expect(state.hidden[FIRST]).toMatchObject({ reason: 'economy' });
    expect(state.hidden[FIRST]!.sameAs).toBeUndefined();
  });
});
