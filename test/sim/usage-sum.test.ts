import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASELINES, CacheSimulator, type SimParams } from '../../src/sim/index.js';
import { OPTIONS, sessionArb } from './helpers.js';

describe('CacheSimulator usage', () => {
  it('always adds up: read + writes + input = total, creation = 5m + 1h (every baseline, random sessions)', () => {
    fc.assert(
      fc.property(sessionArb, fc.constantFrom(...BASELINES), (session, strategy) => {
        const sim = new CacheSimulator(OPTIONS);
        for (const { at, params } of session) {
          const r = sim.send(strategy.apply(params as SimParams), at);
          expect(r.rejected).toBeNull();
          if (r.rejected) return;
          const u = r.usage;
          const c = u.cache_creation;
          expect(u.cache_creation_input_tokens).toBe(c.ephemeral_5m_input_tokens + c.ephemeral_1h_input_tokens);
          expect(u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens).toBe(r.explain.totalTokens);
          for (const n of [u.input_tokens, c.ephemeral_5m_input_tokens, c.ephemeral_1h_input_tokens, u.cache_read_input_tokens]) {
            expect(n).toBeGreaterThanOrEqual(0);
          }
          const w = r.explain.writes.reduce((a, x) => a + x.tokens, 0);
          expect(w).toBe(u.cache_creation_input_tokens);
        }
      }),
      { numRuns: 150 },
    );
  });
});
