/**
 * Preserved thinking with interleaved thinking (models that bind thinking): one response can hold thinking after
 * its own text or tool_use blocks (thinking, text, thinking, tool_use). Each thinking block's prefix includes the
 * same response's earlier blocks, so a block of it changed before it is first sent back (an agent's immediate
 * hide) invalidates the thinking after that block, not the one before it. The fake server signs and checks it.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import { simulateAll } from '../../src/sim/simulator.js';
import type { Decision } from '../../src/render/types.js';
import { checkBinding } from '../../src/testing/fake-server-binding.js';
import { appendResponse, appendToolResults, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { signedAnswer, thinkingOf } from '../helpers/binding.js';
import { newSession } from '../helpers/build.js';

const MODEL = 'claude-sonnet-5-5';

/** The model's answer to `params`, signed by the fake server: thinking, text, thinking, tool_use. */
function interleaved(
  params: Anthropic.MessageCreateParamsNonStreaming,
  n: number,
  between = `Let me look at file ${n}; it is long, so I will quote it in full before I decide anything.`,
): Anthropic.ContentBlockParam[] {
  return signedAnswer(params, n, [
    { type: 'thinking', thinking: `First thought ${n}.`, signature: `sig-${n}-a` },
    { type: 'text', text: between, citations: null },
    { type: 'thinking', thinking: `Second thought ${n}.`, signature: `sig-${n}-b` },
    { type: 'tool_use', id: `toolu_${n}`, name: 'Read', input: { path: `src/${n}.ts` } },
  ]);
}

const drops = (ds: readonly Decision[]) => ds.filter((d) => d.type === 'prune' && d.reason === 'binding');

describe('preserved thinking: interleaved thinking in one response', () => {
  it('an unchanged interleaved response goes back whole and is accepted', () => {
    let state: TimelineState = startTurn(newSession(MODEL), 'Fix it.');
    let r = render(setTail(state, 'live 1'), { now: 1 });
    for (let n = 1; n <= 3; n++) {
      const params = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
      expect(checkBinding(params as never, undefined)).toEqual([]);
      state = appendResponse(r.state, interleaved(params, n));
      state = appendToolResults(state, [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `file ${n}` }]);
      r = render(setTail(state, `live ${n + 1}`), { now: 1 + n });
      expect(drops(r.decisions)).toEqual([]);
    }
    const last = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
    expect(checkBinding(last as never, undefined)).toEqual([]);
    expect(thinkingOf(last)).toEqual(['sig-1-a', 'sig-1-b', 'sig-2-a', 'sig-2-b', 'sig-3-a', 'sig-3-b']);
  });

  it("a block hidden before the response's second thinking is first sent back: that thinking is left out, the first kept", () => {
    const all: Anthropic.MessageCreateParamsNonStreaming[] = [];
    let state: TimelineState = startTurn(newSession(MODEL), 'Fix it.');
    let r = render(setTail(state, 'live 1'), { now: 1 });
    // Round 1 goes back whole.
    let params = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
    all.push(params);
    state = appendResponse(r.state, interleaved(params, 1));
    state = appendToolResults(state, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'file 1' }]);
    r = render(setTail(state, 'live 2'), { now: 2 });
    params = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
    all.push(params);
    expect(checkBinding(params as never, undefined)).toEqual([]);
    // Round 2: the agent hides the response's text at once, before it is sent back.
    state = appendResponse(r.state, interleaved(params, 2));
    state = appendToolResults(state, [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'file 2' }]);
    const hidden = hideBlock(state, 'turns/1/rounds/2/response/1', { force: true, now: 3 });
    expect(hidden.decision.type).toBe('hide');
    r = render(setTail(hidden.state, 'live 3'), { now: 3 });
    params = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
    all.push(params);
    expect(() => checkBinding(params as never, undefined)).not.toThrow();
    expect(thinkingOf(params)).toEqual(['sig-1-a', 'sig-1-b', 'sig-2-a']);
    const dropped = drops(r.decisions);
    expect(dropped.map((d) => d.path)).toEqual(['turns/1/rounds/2/response/2']);
    expect(dropped[0]).toMatchObject({ binding: { cause: 'hidden', changedAt: 'turns/1/rounds/2/response/1' } });
    // Later requests keep it out (no gap, nothing put back) and are accepted.
    state = appendResponse(r.state, interleaved(params, 3));
    state = appendToolResults(state, [{ type: 'tool_result', tool_use_id: 'toolu_3', content: 'file 3' }]);
    r = render(setTail(state, 'live 4'), { now: 4 });
    params = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
    expect(checkBinding(params as never, undefined)).toEqual([]);
    expect(thinkingOf(params)).toEqual(['sig-1-a', 'sig-1-b', 'sig-2-a', 'sig-3-a', 'sig-3-b']);
    all.push(params);
    // The simulator (which infers where each block was produced, same-response blocks included) agrees.
    expect(simulateAll(all.map((p, i) => ({ at: i * 1000, params: p as never }))).map((x) => x.rejected)).toEqual([null, null, null, null]);
  });

  it('a blank text between two thinking blocks (dropped at append: the API refuses it) takes the second thinking with it', () => {
    // Models sometimes emit a whitespace-only text block; the API refuses one in a request, so the timeline drops
    // it. The thinking after it in the same response was bound to a prefix that held it: it cannot go back.
    let state: TimelineState = startTurn(newSession(MODEL), 'Fix it.');
    let r = render(setTail(state, 'live 1'), { now: 1 });
    for (let n = 1; n <= 2; n++) {
      const params = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
      expect(() => checkBinding(params as never, undefined), `request ${n}`).not.toThrow();
      state = appendResponse(r.state, interleaved(params, n, '\n\n'));
      state = appendToolResults(state, [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `file ${n}` }]);
      r = render(setTail(state, `live ${n + 1}`), { now: 1 + n });
    }
    const params = toAnthropic(r) as Anthropic.MessageCreateParamsNonStreaming;
    expect(() => checkBinding(params as never, undefined)).not.toThrow();
    // Each response's first thinking is kept (round 2's was produced without round 1's second), the second left out.
    expect(thinkingOf(params)).toEqual(['sig-1-a', 'sig-2-a']);
    expect(drops(r.decisions).map((d) => d.path)).toContain('turns/1/rounds/2/response/2');
  });
});
