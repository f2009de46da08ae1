/**
 * The held stale results read from the walk's slots (prune.ts `SlotRecord`, prune-rule.ts `LiveSlots`): on a model
 * that binds thinking, the visible results of file-less calls a write made stale are held (pruning one would
 * invalidate the thinking after it), found again after every write; the prune pass keeps per slot of the walk's
 * live keys where it found each one in the stream and what removing it saves, and reports a held one from that
 * record while the slot holds the same result and the stream the same block there. The record must never be read
 * for another result or another counter: every request of a session whose options change between requests (the
 * minChars, which makes the walk read its live keys anew into other slots; a token counter under which a note
 * costs more than the payload, so removing it saves nothing and it is no candidate) renders as a cold copy of the
 * same state does (its own walk, no record), decisions and request bytes.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../src/models/profiles.js';
import type { RenderOptions } from '../../src/render/types.js';
import { economySession } from '../helpers/economy-session.js';
import { replayAgainstCold } from '../helpers/slot-records.js';

const REQUESTS = 220;
const MODEL = 'claude-sonnet-5-5';

describe('held stale results read from the slots equal a cold render, across options that change between requests', () => {
  for (const shape of ['multi', 'single'] as const) {
    it(`claude-sonnet-5-5, ${shape === 'single' ? 'one open turn' : 'many turns'}, compaction off`, () => {
      const base: RenderOptions = { profile: { ...resolveProfile(MODEL), contextWindow: 1_000_000 }, compact: { enabled: false }, policy: 'economy' };
      const [held, heldNone] = replayAgainstCold(
        economySession('held-slots', MODEL, shape, REQUESTS),
        MODEL,
        base,
        (r) => r.decisions.filter((d) => d.type === 'defer' && d.why.startsWith('preserved thinking')).length,
      );
      // The session holds stale results under the ordinary counter, and none under the one whose notes cost more.
      expect(held).toBeGreaterThan(50);
      expect(heldNone).toBe(0);
    });
  }
});
