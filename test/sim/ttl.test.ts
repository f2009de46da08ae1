import { describe, expect, it } from 'vitest';
import { CacheSimulator } from '../../src/sim/index.js';
import { chat, M1H, M5, MIN, OPTIONS, req, text } from './helpers.js';

const params = req([text(500, M5)], chat(1));
const params1h = req([text(500, M1H)], chat(1));
const read = (sim: CacheSimulator, p: typeof params, at: number) => sim.send(p, at).usage?.cache_read_input_tokens;

describe('CacheSimulator TTL', () => {
  it('keeps a 5m entry until just before 5 minutes after the request start, and drops it at exactly 5', () => {
    const a = new CacheSimulator(OPTIONS);
    a.send(params, 0);
    expect(read(a, params, 5 * MIN - 1)).toBe(500);
    const b = new CacheSimulator(OPTIONS);
    b.send(params, 0);
    expect(read(b, params, 5 * MIN)).toBe(0);
  });

  it('refreshes an entry on every read, from the reading request start', () => {
    const sim = new CacheSimulator(OPTIONS);
    sim.send(params, 0);
    expect(read(sim, params, 4 * MIN)).toBe(500);
    expect(read(sim, params, 8 * MIN)).toBe(500);
    expect(read(sim, params, 12 * MIN + 59_999)).toBe(500);
    expect(sim.entries()[0]?.expiresAt).toBe(17 * MIN + 59_999);
  });

  it('keeps a 1h entry for an hour', () => {
    const sim = new CacheSimulator(OPTIONS);
    sim.send(params1h, 0);
    expect(read(sim, params1h, 59 * MIN)).toBe(500);
    expect(read(sim, params1h, 119 * MIN - 1)).toBe(500);
    expect(read(sim, params1h, 179 * MIN)).toBe(0);
  });

  it('extends an entry when a later write has a longer TTL, and a 5m read does not shorten a 1h entry', () => {
    const sim = new CacheSimulator(OPTIONS);
    sim.send(params, 0);
    // Expired 5m entry rewritten as 1h.
    sim.send(params1h, 6 * MIN);
    expect(read(sim, params, 30 * MIN)).toBe(500);
    expect(read(sim, params, 89 * MIN)).toBe(500);
  });

  it('counts the TTL from the request start, so entries written by a request are readable by later ones only', () => {
    const sim = new CacheSimulator({ ...OPTIONS, readableAfterMs: 2000 });
    sim.send(params, 0);
    expect(read(sim, params, 1000)).toBe(0); // a parallel request: both write
    expect(read(sim, params, 3000)).toBe(500);
  });
});
