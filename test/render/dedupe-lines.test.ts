/**
 * Dedupe's line check (dedupe.ts `mayContain`): a large earlier read is searched for a new partial read only when
 * every complete line of the partial is a line of it. The check may only skip searches that find nothing: a partial
 * cut mid-line at both ends is still found, and one whose lines are all there but not in that order is not.
 */
import { describe, expect, it } from 'vitest';
import { render } from '../../src/render/render.js';
import { replayAll } from '../../src/replay/replay.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import { parseTrace } from '../../src/trace/reader.js';
import { type Call, ENV, lines, oneTurnTrace, T0 } from '../helpers/one-turn-trace.js';

const A = '/repo/src/ledger.ts';
const FULL = lines('ledger', 400);
const big: Call = ['Read', { file_path: A }, FULL];
const grep = (k: number): Call => ['Grep', { pattern: `p${k}`, path: '/repo/src' }, lines(`grep${k}`, 30)];
const FIRST = 'turns/1/rounds/1/results/toolu_0';
const PARTIAL = 'turns/1/rounds/5/results/toolu_4';

/** The state after a large read, three greps, `partial` (a Read of A) and one more grep, under economy. */
async function stateAfter(partial: string) {
  const small: Call = ['Read', { file_path: A, offset: 11, limit: 10 }, partial];
  const reqs = await replayAll(parseTrace(oneTurnTrace([big, grep(1), grep(2), grep(3), small, grep(4)])), { policy: 'economy' });
  return reqs.at(-1)!.rendered.state;
}

describe('dedupe: the line check before a search', () => {
  it('a partial read cut mid-line at both ends is part of the large read that holds it', async () => {
    expect(FULL.length).toBeGreaterThan(1024);
    const from = FULL.indexOf('ledger line 10 ') + 7;
    const to = FULL.indexOf('ledger line 20 ') + 9;
    const partial = FULL.slice(from, to);
    // Its first and last pieces are no lines of the read; the lines between are.
    expect(FULL.split('\n')).not.toContain(partial.split('\n')[0]);
    expect(partial.split('\n').length).toBeGreaterThan(5);
    expect((await stateAfter(partial)).hidden[PARTIAL]).toMatchObject({ sameAs: FIRST });
  });

  it('a partial read whose lines are all lines of the large read, in another order, is sent as it is', async () => {
    const all = FULL.split('\n');
    const partial = [...all.slice(20, 26), ...all.slice(10, 16)].join('\n');
    expect(FULL.includes(partial)).toBe(false);
    expect((await stateAfter(partial)).hidden[PARTIAL]).toBeUndefined();
  });

  it('a partial read of the same lines is still found (the control: the pointer is made)', async () => {
    const partial = FULL.split('\n').slice(10, 20).join('\n');
    expect((await stateAfter(partial)).hidden[PARTIAL]).toMatchObject({ sameAs: FIRST });
  });
});

describe('dedupe: a container is the first read with its content', () => {
  const B = '/repo/src/ledger-copy.ts';
  const SMALL = 'turns/1/rounds/5/results/toolu_4';
  const READ_A = 'turns/1/rounds/2/results/toolu_1';
  /**
   * A read of B, a read of A, two greps under `conservative` (nothing pointed), then `economy` from the request that
   * first carries a partial read of A (lines 11–20 of FULL).
   */
  function stateAfter(bText: string) {
    const calls: Call[] = [
      ['Read', { file_path: B }, bText],
      big,
      grep(1),
      grep(2),
      ['Read', { file_path: A, offset: 11, limit: 10 }, FULL.split('\n').slice(10, 20).join('\n')],
      grep(4),
    ];
    let s = createTimeline({
      instructions: ENV.instructions,
      tools: ENV.tools.map((t) => ({ ...t, input_schema: { type: 'object' as const } })),
      model: ENV.model,
    });
    s = startTurn(s, 'fix the total', T0);
    let t = T0;
    const policy = (i: number) => (i < 4 ? ('conservative' as const) : ('economy' as const));
    calls.forEach(([name, input, result], i) => {
      t += 3000;
      if (i > 0) s = render(s, { now: t, policy: policy(i) }).state;
      s = appendResponse(s, [{ type: 'tool_use', id: `toolu_${i}`, name, input }], t);
      t += 3000;
      s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: result }], [], t);
    });
    return render(s, { now: t + 3000, policy: policy(calls.length) }).state;
  }

  it('a read of A that holds the partial read but repeats a visible read of B is no container: the partial is sent', () => {
    const state = stateAfter(FULL);
    // Both full reads stayed visible (conservative pointed nothing), and the read of A holds the partial.
    expect(state.hidden[READ_A]).toBeUndefined();
    expect(state.hidden[SMALL]).toBeUndefined();
  });

  it('the control: when B holds other text, the read of A is the container', () => {
    expect(stateAfter(lines('other', 400)).hidden[SMALL]).toMatchObject({ sameAs: READ_A });
  });
});
