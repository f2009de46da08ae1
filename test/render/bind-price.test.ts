/**
 * Preserved thinking and the cost gate (models that bind thinking): the thinking the guard leaves out because of
 * a change is priced (its tokens at the output price: the model may think them again). An agent's hide weighs it
 * (so a hide that would cost a long thought waits), a compaction's price and the plan name it; models that do
 * not bind thinking are priced as before.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile, type ModelProfile } from '../../src/models/profiles.js';
import { hideBlock } from '../../src/render/hide-block.js';
import { render } from '../../src/render/render.js';
import type { Rendered } from '../../src/render/types.js';
import { appendResponse, appendToolResults, setTail, startTurn } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { newSession, text } from '../helpers/build.js';

const MODEL = 'claude-sonnet-5-5';
const BINDING: ModelProfile = resolveProfile(MODEL);
const PLAIN: ModelProfile = { ...BINDING, bindsThinking: false };

/** Turn 1: a big Read result, then a round that thinks long, then a small result; rendered after each. */
function loop(profile: ModelProfile, thought: number): { state: TimelineState; rendered: Rendered } {
  const opts = (now: number) => ({ now, profile });
  let state: TimelineState = startTurn(newSession(MODEL), 'Fix it.');
  let r = render(state, opts(1));
  state = appendResponse(r.state, [
    { type: 'thinking', thinking: 'Read the log first.', signature: 'sig-1' },
    { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'build.log' } },
  ]);
  state = appendToolResults(state, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: text('build.log', 400_000) }]);
  r = render(state, opts(2));
  state = appendResponse(r.state, [
    { type: 'thinking', thinking: text('thought', thought), signature: 'sig-2' },
    { type: 'tool_use', id: 'toolu_2', name: 'Read', input: { path: 'a.ts' } },
  ]);
  state = appendToolResults(state, [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'export const a = 1;' }]);
  r = render(state, opts(3));
  return { state: r.state, rendered: r };
}

describe('preserved thinking: the gate prices the thinking it would leave out', () => {
  it("an agent's hide weighs the thinking after it: one that pays on a plain model waits on a binding one", () => {
    const path = 'turns/1/rounds/1/results/toolu_1';
    const plain = hideBlock(loop(PLAIN, 40_000).state, path, { now: 4, profile: PLAIN });
    expect(plain.decision.type).toBe('hide');
    expect(plain.decision.type === 'hide' && plain.decision.price?.thinkingLost).toBeFalsy();
    const bound = hideBlock(loop(BINDING, 40_000).state, path, { now: 4, profile: BINDING });
    expect(bound.decision.type).toBe('defer');
    const price = bound.decision.type === 'defer' ? bound.decision.price : undefined;
    expect(price?.thinkingLost?.blocks).toBe(1);
    expect(price!.saving).toBeGreaterThan(price!.rewrite);
    expect(price!.saving).toBeLessThanOrEqual(price!.rewrite + price!.thinkingLost!.cost);
    expect(bound.decision.type === 'defer' && bound.decision.why).toContain('thinking block(s) after it');
    // A short thought: the hide still pays, and its price says what it costs.
    const cheap = hideBlock(loop(BINDING, 200).state, path, { now: 4, profile: BINDING });
    expect(cheap.decision.type).toBe('hide');
    const lost = cheap.decision.type === 'hide' ? cheap.decision.price?.thinkingLost : undefined;
    expect(lost?.blocks).toBe(1);
    expect(lost!.cost).toBeCloseTo((lost!.tokens * BINDING.prices.output) / 1e6, 12);
  });

  it("the plan totals the thinking a request leaves out; a compaction's price names it", () => {
    const path = 'turns/1/rounds/1/results/toolu_1';
    const { state } = loop(BINDING, 200);
    const hidden = hideBlock(state, path, { now: 4, profile: BINDING, force: true }).state;
    const r = render(setTail(hidden, 'live'), { now: 4, profile: BINDING });
    const drops = r.decisions.filter((d) => d.type === 'prune' && d.reason === 'binding');
    expect(drops).toHaveLength(1);
    expect(r.plan.thinkingLost).toEqual({
      blocks: 1,
      tokens: drops.reduce((n, d) => n + (d.type === 'prune' ? d.tokensRemoved : 0), 0),
      cost: expect.any(Number),
    });
    // The next request leaves nothing more out: no figure.
    expect(render(r.state, { now: 5, profile: BINDING }).plan.thinkingLost).toBeUndefined();
    // A plain model: never a figure.
    const plain = loop(PLAIN, 200).state;
    const p = render(setTail(hideBlock(plain, path, { now: 4, profile: PLAIN, force: true }).state, 'live'), { now: 4, profile: PLAIN });
    expect(p.plan.thinkingLost).toBeUndefined();
  });

  it('a compaction that leaves thinking behind it out carries that in its price', () => {
    // A window so small that the next request compacts, past the defer ceiling (so at once, mid-loop).
    const { state, rendered } = loop(BINDING, 200);
    const window = Math.ceil(rendered.tokens.total / 0.97);
    const small = { ...BINDING, contextWindow: window };
    const r = render(setTail(state, 'live'), { now: 4, profile: small, compact: { threshold: 0.5, target: 0.2 } });
    const compact = r.decisions.find((d) => d.type === 'compact');
    expect(compact).toBeDefined();
    const drops = r.decisions.filter((d) => d.type === 'prune' && d.reason === 'binding');
    expect(drops.length).toBeGreaterThan(0);
    expect(compact?.type === 'compact' && compact.price.thinkingLost?.blocks).toBe(drops.length);
  });
});
