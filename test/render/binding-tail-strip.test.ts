/**
 * A model that binds thinking and strips earlier turns' thinking (Haiku 5.5: `bindsThinking`, not
 * `keepsThinking`): ④ goes on the tail a request sends (cache-points.ts), and the next request holds that tail
 * folded into the history (bind.ts foldSentTail). When that next request starts a turn, the renderer drops the
 * earlier thinking itself (the API strips it anyway), so the folded tail sits earlier in the stream than where it
 * was sent, with the same provider prefix. The provider reads the entry written there; the plan must say so.
 */
import { describe, expect, it } from 'vitest';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import { simulateAll } from '../../src/sim/simulator.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import { BlockTokenCache } from '../../src/tokens/counter.js';
import { finalAnswer, newSession, text, toolRound } from '../helpers/build.js';

const MODEL = 'claude-haiku-5-5';

describe('④ on the kept tail of a model that binds and strips thinking', () => {
  it('the next turn reads the entry on the folded tail, and the plan predicts that read', () => {
    const tokens = new BlockTokenCache();
    let s = startTurn(newSession(MODEL), `Fix it. ${text('task', 6000)}`);
    s = toolRound(toolRound(s, 1, 2000), 1, 2000);
    const r1 = render(setTail(s, `live view 1 ${text('view', 600)}`), { now: 1_000, tokens });
    expect(r1.cachePoints.at(-1)!.index).toBeGreaterThanOrEqual(r1.tailStart);
    s = startTurn(finalAnswer(r1.state), 'Next task: the docs.');
    const r2 = render(setTail(s, `live view 2 ${text('view', 600)}`), { now: 2_000, tokens });
    const [, second] = simulateAll([
      { at: 1_000, params: toAnthropic(r1) as never },
      { at: 2_000, params: toAnthropic(r2) as never },
    ]);
    expect(second!.rejected).toBeNull();
    // The provider reads everything the first request sent, its tail included (less the thinking it strips).
    expect(second!.usage!.cache_read_input_tokens).toBe(r1.cachePoints.at(-1)!.prefixTokens - thinkingTokens(r1));
    expect(r2.plan.usage.cache_read_input_tokens).toBe(second!.usage!.cache_read_input_tokens);
  });
});

function thinkingTokens(r: ReturnType<typeof render>): number {
  return r.stream.filter((b) => b.role === 'assistant' && (b.param as { type: string }).type === 'thinking').reduce((n, b) => n + b.tokens, 0);
}
