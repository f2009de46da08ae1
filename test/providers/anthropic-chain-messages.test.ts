/**
 * The mapper's messages per chain (src/providers/anthropic.ts, issue 14): a new chain (a prune, a hide, a
 * branch) takes the message arrays of the chain it started from, cut where the two part, and the older chain
 * maps its messages anew if one of its renders is mapped again. Every request must map as its blocks mapped one
 * by one (a plain copy of the stream has no layout, so it is mapped without any chain's messages): the newest at
 * once, and every earlier one again at the end, after later chains took its chain's arrays.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import { setTail, startTurn } from '../../src/timeline/edit.js';
import { finalAnswer, newSession, toolRound } from '../helpers/build.js';
import { economySession, replayRequests } from '../helpers/economy-session.js';

/** The request as the chain's messages map it, and as every block mapped one by one. */
function both(r: Rendered): [string, string] {
  return [JSON.stringify(toAnthropic(r)), JSON.stringify(toAnthropic({ ...r, stream: [...r.stream] }))];
}

describe("the mapper's messages when a newer chain takes an older chain's arrays", () => {
  it('maps every request of an economy session as its blocks one by one, now and after later chains took its arrays', () => {
    const model = 'claude-sonnet-4-6';
    const options: RenderOptions = { profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, policy: 'economy', compact: { enabled: false } };
    const renders: Rendered[] = [];
    let changed = 0;
    replayRequests(economySession('chain-messages', model, 'multi', 70), model, options, (state, now) => {
      const r = render(state, { ...options, now });
      const [chain, plain] = both(r);
      expect(chain).toBe(plain);
      // A render that changed a block it had sent before starts a new chain, which takes the older one's arrays.
      if (r.firstChange < (state.lastRender?.stream.length ?? 0)) changed++;
      renders.push(r);
      return r;
    });
    expect(changed).toBeGreaterThan(10);
    for (const r of renders) {
      const [chain, plain] = both(r);
      expect(chain).toBe(plain);
    }
  });

  it('maps a tail after the answer that ends the stable part as new messages of their own', () => {
    const s = finalAnswer(toolRound(toolRound(startTurn(newSession(), 'Fix the failing test.'))));
    // The chain's messages first, then the same chain with the answer and a tail of two blocks.
    const before = render(toolRound(startTurn(newSession(), 'Fix the failing test.')), { now: 1000 });
    expect(both(before)[0]).toBe(both(before)[1]);
    const r = render(
      setTail(s, [
        { type: 'text', text: 'budget: 12 left' },
        { type: 'text', text: 'interrupts: none' },
      ]),
      { now: 2000 },
    );
    const [chain, plain] = both(r);
    expect(chain).toBe(plain);
    const messages = toAnthropic(r).messages;
    expect(messages.at(-2)!.role).toBe('assistant');
    expect(messages.at(-1)!.content).toHaveLength(2);
  });
});
