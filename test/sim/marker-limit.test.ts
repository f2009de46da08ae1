import { describe, expect, it } from 'vitest';
import { CacheSimulator } from '../../src/sim/index.js';
import { chat, M5, OPTIONS, req, text } from './helpers.js';

describe('CacheSimulator marker limit', () => {
  it('accepts 4 markers', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(200, M5)], chat(4, 10, { 0: M5, 1: M5, 3: M5 })), 0);
    expect(r.rejected).toBeNull();
    expect(r.explain?.markers).toHaveLength(4);
  });

  it('rejects a 5th marker with the API text, and changes nothing', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(200, M5)], chat(4, 10, { 0: M5, 1: M5, 2: M5, 3: M5 })), 0);
    expect(r.rejected?.message).toMatchInlineSnapshot(`"A maximum of 4 blocks with cache_control may be provided. Found 5."`);
    expect(r.usage).toBeNull();
    expect(r.cost).toBeNull();
    expect(sim.entries()).toEqual([]);
  });

  it('counts the automatic marker in the 4 slots', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(200, M5)], chat(4, 10, { 0: M5, 1: M5, 2: M5 }), { cache_control: M5 }), 0);
    expect(r.rejected?.message).toBe('A maximum of 4 blocks with cache_control may be provided. Found 5.');
  });
});
