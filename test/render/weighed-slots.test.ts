/**
 * The stale results weighed from the walk's slots (prune.ts `SlotRecord`, prune-rule.ts `LiveSlots`) on a model that
 * does not bind thinking: after every write the gate finds every visible result of a file-less call stale again and
 * weighs it again (its saving against the re-write of a warm batch from it), tens a request late in a long session.
 * The prune pass keeps per slot of the walk's live keys where it found each one in the stream, what removing it saves
 * and its hidden record, and weighs it from that record (its re-use verdict read anew) while the slot holds the same
 * result and the stream the same block there. The record must never be read for another result, another counter or
 * another stream block: every request of a session whose options change between requests (the minChars; a token
 * counter under which a note costs more than the payload, so removing it saves nothing) and whose stream moves under
 * the recorded places (thinking of earlier turns left out, duplicates, the agent's hides) renders as a
 * cold copy of the same state does (its own walk, no record), decisions and request bytes.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import { toAnthropic } from '../../src/providers/anthropic.js';
import { render } from '../../src/render/render.js';
import type { RenderOptions } from '../../src/render/types.js';
import { appendResponse } from '../../src/timeline/edit.js';
import type { TimelineState } from '../../src/timeline/types.js';
import { BlockTokenCache, charCounter, type TokenCounter } from '../../src/tokens/counter.js';
import type { TraceEvent } from '../../src/trace/types.js';
import { coldCopy as cold } from '../helpers/cold-copy.js';
import { economySession } from '../helpers/economy-session.js';
import { applyEvent } from '../helpers/trace-events.js';

const REQUESTS = 220;
const MODEL = 'claude-sonnet-4-6';

/** Characters / 4, but a hidden payload's note costs more than any payload of the session: removing one saves nothing. */
const dearNotes: TokenCounter = {
  name: 'dear-notes',
  count: (text) => (text.startsWith('[') && text.includes('recall(') ? 1_000_000 : Math.ceil(text.length / 4)),
};

/** Replays the session, each render against a cold copy's; returns how many payloads the gate pruned, per counter. */
function replay(
  events: readonly TraceEvent[],
  base: RenderOptions,
  counters = [new BlockTokenCache(charCounter()), new BlockTokenCache(dearNotes)],
): { pruned: number; prunedNone: number } {
  let state: TimelineState | undefined;
  let now = 0;
  let requests = 0;
  const n = { pruned: 0, prunedNone: 0 };
  for (const e of events) {
    if (e.type === 'assistant') {
      requests++;
      // Six requests with one counter, six with the other; the minChars changes after 100 requests.
      const tokens = counters[Math.floor(requests / 6) % 2]!;
      const options: RenderOptions = { ...base, now, tokens, prune: { minChars: requests > 100 ? 240 : 300 } };
      const r = render(state!, options);
      const fresh = render(cold(state!), options);
      expect(r.decisions).toEqual(fresh.decisions);
      expect(JSON.stringify(toAnthropic(r))).toBe(JSON.stringify(toAnthropic(fresh)));
      const pruned = r.decisions.filter((d) => d.type === 'prune' && d.reason === 'economy').length;
      if (tokens === counters[0]) n.pruned += pruned;
      else n.prunedNone += pruned;
      state = appendResponse(r.state, e.content as never, e.at);
      now = e.at;
      continue;
    }
    if ('at' in e && typeof e.at === 'number') now = e.at;
    state = applyEvent(state, e, { model: MODEL, options: base, now, shift: 0, seen: new Set() });
  }
  return n;
}

describe('stale results weighed from the slots equal a cold render, across options that change between requests', () => {
  for (const shape of ['multi', 'single'] as const) {
    // Few remaining requests expected: a re-write from an old stale result seldom pays, so they stay visible and are
    // weighed again after every write (from their record).
    it(`${MODEL}, ${shape === 'single' ? 'one open turn' : 'many turns'}, compaction off`, () => {
      const base: RenderOptions = {
        profile: { ...resolveProfile(MODEL), contextWindow: 1_000_000 },
        compact: { enabled: false },
        policy: 'economy',
        expectedRemaining: 8,
      };
      const n = replay(economySession('weighed-slots', MODEL, shape, REQUESTS, { thinkingRate: 0.4 }), base);
      // The gate prunes under both counters (thinking of earlier turns leaves no note: it saves under either).
      expect(n.pruned).toBeGreaterThan(20);
      expect(n.prunedNone).toBeGreaterThan(0);
    });
    // Each compaction moves every later block to another stream index under the same counter: a record read for the
    // block now at its recorded index would weigh another block's place and saving.
    it(`${MODEL}, ${shape === 'single' ? 'one open turn' : 'many turns'}, compacting in a 40k window`, () => {
      const base: RenderOptions = { profile: { ...resolveProfile(MODEL), contextWindow: 40_000 }, policy: 'economy' };
      const n = replay(economySession('weighed-slots', MODEL, shape, REQUESTS), base, [new BlockTokenCache(charCounter())]);
      expect(n.pruned).toBeGreaterThan(20);
    });
  }
});
