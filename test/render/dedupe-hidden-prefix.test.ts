import { describe, expect, it } from 'vitest';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { appendResponse, appendToolResults, createTimeline, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { lines } from '../helpers/one-turn-trace.js';

const A = '/repo/src/ledger.ts';
const TEXT = lines('ledger', 60);
const FIRST = 'turns/1/rounds/1/results/toolu_0';
const SECOND = 'turns/1/rounds/3/results/toolu_2';
const OPTIONS = { policy: 'economy' as const };

/**
 * One turn: Read A, Grep, Read A again (the same text): the state before the request that first carries the re-read.
 * The Grep's result is short (nothing for the gate to prune, so no render adds the prune notice: every render below
 * keeps these rounds, and the re-use walk's lists are the same ones throughout).
 */
function rereadState(): TimelineState {
  const tools = ['Read', 'Grep'].map((name) => ({ name, description: name, input_schema: { type: 'object' as const, properties: {} } }));
  let s = startTurn(createTimeline({ model: 'claude-sonnet-4-6', instructions: ['You fix ledgers.'], tools }), 'fix the total', 0);
  const calls: [string, object, string][] = [
    ['Read', { file_path: A }, TEXT],
    ['Grep', { pattern: 'total', path: '/repo/src' }, 'no matches'],
    ['Read', { file_path: A }, TEXT],
  ];
  calls.forEach(([name, input, content], i) => {
    const at = 6000 * i;
    s = appendResponse(render(s, { ...OPTIONS, now: at }).state, [{ type: 'tool_use', id: `toolu_${i}`, name, input }], at + 1000);
    s = appendToolResults(s, [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content }], [], at + 2000);
  });
  return s;
}

describe('dedupe after another state hid the copy', () => {
  it('points a re-read at its visible copy even when a state with the same rounds but the copy hidden was rendered first', () => {
    const state = rereadState();
    // Rendered as it is, the re-read is a note pointing at the first read.
    expect(render(state, { ...OPTIONS, now: 20_000 }).state.hidden[SECOND]?.sameAs).toBe(FIRST);
    // The agent hides the first read in a state with the same rounds: its re-read has no visible copy there.
    const hid = hideBlock(state, FIRST, { force: true, ...OPTIONS });
    expect(hid.decision.type).toBe('hide');
    const there = render(hid.state, { ...OPTIONS, now: 20_000 }).state;
    expect(there.hidden[FIRST]?.reason).toBe('agent');
    expect(there.hidden[SECOND]).toBeUndefined();
    // The state without that hide again (its set is the other's base, not made from it): the first read is visible.
    expect(render(state, { ...OPTIONS, now: 20_000 }).state.hidden[SECOND]?.sameAs).toBe(FIRST);
  });
});
