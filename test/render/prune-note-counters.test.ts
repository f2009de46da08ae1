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

/**
 * Replays the economy session (sonnet-4-6, a 1M window, compaction off) over `requests` requests; each state is
 * rendered at `at(now)` with the char counter and then the default one, every prune of both checked. The session goes
 * on from a render at `now` with the default counter. Returns how many prunes were checked.
 */
function checkedWithTwoCounters(requests: number, at: (now: number) => number): number {
  const model = 'claude-sonnet-4-6';
  const options: RenderOptions = { profile: { ...resolveProfile(model), contextWindow: 1_000_000 }, policy: 'economy', compact: { enabled: false } };
  const chars = new BlockTokenCache(charCounter(2));
  const main = new BlockTokenCache();
  let checked = 0;
  replayRequests(economySession('prune-note-counters', model, 'multi', requests), model, options, (state, now) => {
    checked += check(state, render(state, { ...options, now: at(now), tokens: chars }), () => charCounter(2));
    const r = render(state, { ...options, now: at(now), tokens: main });
    checked += check(state, r, () => undefined);
    return at(now) === now ? r : render(state, { ...options, now, tokens: main });
  });
  return checked;
}

describe("the prune pass's kept note counts", () => {
  it('are recounted for another counter: two cold renders of each state, one counter after the other', () => {
    // Two hours later: cold, every candidate weighed (reason 'prune'), with one counter and then the other.
    expect(checkedWithTwoCounters(60, (now) => now + 2 * 3_600_000)).toBeGreaterThan(40);
  });

  it('are recounted for another counter while warm: the stale results the gate weighs again after each write', () => {
    // Warm, the gate weighs the visible results a write made stale again after every write (reason 'economy'), and
    // keeps what it weighed of each on the result's own candidate: its saving too, counted with the counter it had.
    expect(checkedWithTwoCounters(160, (now) => now)).toBeGreaterThan(40);
  });
});
