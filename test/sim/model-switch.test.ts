import { describe, expect, it } from 'vitest';
import { CacheSimulator } from '../../src/sim/index.js';
import { chat, M5, OPTIONS, OTHER_MODEL, req, text } from './helpers.js';

describe('CacheSimulator model scope', () => {
  it('misses on a model switch with the same bytes, and hits again on the way back', () => {
    const sim = new CacheSimulator(OPTIONS);
    const a = req([text(500, M5)], chat(1));
    const b = { ...a, model: OTHER_MODEL };
    sim.send(a, 0);
    const switched = sim.send(b, 1000);
    expect(switched.usage?.cache_read_input_tokens).toBe(0);
    expect(switched.explain?.change).toEqual({ position: 0, tier: 'system', cause: 'model_changed' });
    expect(switched.explain?.bust).toBe(false);
    // The other model's price: 500 written at 3 × 1.25.
    expect(switched.cost?.cacheWrite5m).toBeCloseTo((500 * 3.75) / 1e6, 12);
    expect(sim.send(a, 2000).usage?.cache_read_input_tokens).toBe(500);
  });

  it('keeps caches model-scoped with a fixed profile too', () => {
    const sim = new CacheSimulator({ ...OPTIONS, profile: OPTIONS.profiles!['sim-test']! });
    const a = req([text(500, M5)], chat(1));
    sim.send(a, 0);
    expect(sim.send({ ...a, model: 'anything-else' }, 1000).usage?.cache_read_input_tokens).toBe(0);
  });
});
