/**
 * Models that bind thinking to its prefix keep the tail a request sent in the
 * history once it is answered (render/bind.ts foldSentTail): from the next
 * request on it is a stable block like any other. Sent as uncached input and
 * then written by the next request, it cost its input price once more than
 * writing it where it was sent (the judge's sweep, test/bench/judge.ts: 2–6 %
 * over the ideal bound of the engine's own requests on sessions with a live
 * view). Each request must read everything the previous one sent.
 */
import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { generateTrace } from '../../src/synthetic/generate.js';

describe('a model that binds thinking, with a tail on every request', () => {
  for (const model of ['claude-opus-5-5', 'claude-fable-5-2']) {
    it(`${model}: each request reads the whole previous request, its tail included`, async () => {
      const events = generateTrace({ seed: 'binding-tail', profile: 'volatile-tail', requests: 14, rounds: { median: 14, min: 14, max: 14 }, model });
      const c = await compareTrace(() => events, { onWarning: () => {} });
      expect(c.engine.length).toBe(14);
      expect(c.engine.every((r) => r.rendered.tailStart < r.rendered.stream.length)).toBe(true);
      for (let i = 1; i < c.engine.length; i++) {
        const prev = c.engineResults[i - 1]!;
        const now = c.engineResults[i]!;
        expect(now.rejected, `request ${i}`).toBeNull();
        expect(now.explain!.bust, `request ${i}`).toBe(false);
        // Everything the previous request sent is a prefix of this one, and it was written there.
        expect(now.usage!.cache_read_input_tokens, `request ${i}`).toBe(prev.explain!.totalTokens);
        // The engine knows it: its plan reads what the provider reads (the entry on the folded tail is in its ledger).
        expect(c.engine[i]!.rendered.plan.usage.cache_read_input_tokens, `request ${i}`).toBe(now.usage!.cache_read_input_tokens);
      }
    });
  }
});
