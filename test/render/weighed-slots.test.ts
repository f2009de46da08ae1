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
import type { Rendered, RenderOptions } from '../../src/render/types.js';
import { BlockTokenCache, charCounter } from '../../src/tokens/counter.js';
import { economySession } from '../helpers/economy-session.js';
import { replayAgainstCold } from '../helpers/slot-records.js';

const REQUESTS = 220;
const MODEL = 'claude-sonnet-4-6';

/** Payloads the gate pruned while warm (economy). */
const pruned = (r: Rendered): number => r.decisions.filter((d) => d.type === 'prune' && d.reason === 'economy').length;

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
      const [n, none] = replayAgainstCold(economySession('weighed-slots', MODEL, shape, REQUESTS, { thinkingRate: 0.4 }), MODEL, base, pruned);
      // The gate prunes under both counters (thinking of earlier turns leaves no note: it saves under either).
      expect(n).toBeGreaterThan(20);
      expect(none).toBeGreaterThan(0);
    });
    // Each compaction moves every later block to another stream index under the same counter: a record read for the
    // block now at its recorded index would weigh another block's place and saving.
    it(`${MODEL}, ${shape === 'single' ? 'one open turn' : 'many turns'}, compacting in a 40k window`, () => {
      const base: RenderOptions = { profile: { ...resolveProfile(MODEL), contextWindow: 40_000 }, policy: 'economy' };
      const [n] = replayAgainstCold(economySession('weighed-slots', MODEL, shape, REQUESTS), MODEL, base, pruned, [new BlockTokenCache(charCounter())]);
      expect(n).toBeGreaterThan(20);
    });
  }
});
