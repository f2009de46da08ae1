import { describe, expect, it } from 'vitest';
import { CacheSimulator } from '../../src/sim/index.js';
import { chat, M5, OPTIONS, req, text } from './helpers.js';

describe('CacheSimulator minimum cacheable length', () => {
  it('writes and reads nothing below the minimum, without an error', () => {
    const sim = new CacheSimulator(OPTIONS);
    const params = req([text(50, M5)], chat(1, 10));
    for (const at of [0, 1000]) {
      const r = sim.send(params, at);
      expect(r.rejected).toBeNull();
      expect(r.usage).toMatchObject({ input_tokens: 60, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });
      expect(r.explain?.markers[0]?.outcome).toBe('below_minimum');
    }
    expect(sim.entries()).toEqual([]);
  });

  it('checks the cumulative prefix: a short marked block after a long prefix writes', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(99, M5)], chat(1, 1)), 0);
    expect(r.usage?.cache_creation_input_tokens).toBe(0);
    const r2 = sim.send(req([text(99)], chat(1, 1, { 0: M5 })), 1000);
    expect(r2.usage?.cache_creation_input_tokens).toBe(100);
  });

  it('uses the minimum of the request model', () => {
    // sim-test-2 needs 200 tokens.
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(150, M5)], chat(1), { model: 'sim-test-2' }), 0);
    expect(r.usage?.cache_creation_input_tokens).toBe(0);
    const r2 = sim.send(req([text(150, M5)], chat(1)), 0);
    expect(r2.usage?.cache_creation_input_tokens).toBe(150);
  });
});
