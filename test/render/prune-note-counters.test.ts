/**
 * The prune pass keeps each candidate's record and note tokens by block (src/render/prune.ts), the tokens with the
 * counter that counted them. Two renders of the same state with two counters (both cold, so both weigh the same
 * candidates for the same reason and meet the same kept entries): what each prune reports removing is the
 * payload's tokens less its note's, both as that render's own counter counts them.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { render } from '../../src/render/render.js';
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import { hiddenSetOf } from '../../src/timeline/hidden.js';
import { findBlock } from '../../src/timeline/paths.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter, type TokenCounter } from '../../src/tokens/counter.js';
import { economySession, replayRequests } from '../helpers/economy-session.js';

/** Checks every prune of `r` against a fresh cache of `counter`; returns how many it checked. */
function check(state: TimelineState, r: Rendered, counter: () => TokenCounter | undefined): number {
  const hidden = hiddenSetOf(r.state);
  let n = 0;
  for (const d of r.decisions) {
    if (d.type !== 'prune') continue;
    const c = counter();
    const fresh = c ? new BlockTokenCache(c) : new BlockTokenCache();
    const payload = findBlock(state, d.path)!.param;
    const noteTokens = payload.type === 'thinking' || payload.type === 'redacted_thinking' ? 0 : fresh.tokens({ type: 'text', text: hidden.get(d.path)!.note });
    expect(d.tokensRemoved, d.path).toBe(Math.max(0, fresh.tokens(payload) - noteTokens));
    n++;
  }
  return n;
}

describe("the prune pass's kept note counts", () => {
  it('are recounted for another counter: two cold renders of each state, one counter after the other', () => {
    const model = 'claude-sonnet-4-6';
    const options: RenderOptions = { profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, policy: 'economy', compact: { enabled: false } };
    const chars = new BlockTokenCache(charCounter(2));
    const main = new BlockTokenCache();
    let checked = 0;
    replayRequests(economySession('prune-note-counters', model, 'multi', 60), model, options, (state, now) => {
      // Two hours later: cold, every candidate weighed (reason 'prune'), with one counter and then the other.
      const later = now + 2 * 3_600_000;
      checked += check(state, render(state, { ...options, now: later, tokens: chars }), () => charCounter(2));
      checked += check(state, render(state, { ...options, now: later, tokens: main }), () => undefined);
      return render(state, { ...options, now, tokens: main });
    });
    expect(checked).toBeGreaterThan(40);
  });
});
