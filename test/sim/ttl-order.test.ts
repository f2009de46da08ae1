import { describe, expect, it } from 'vitest';
import { CacheSimulator, REJECTION } from '../../src/sim/index.js';
import { chat, M1H, M5, OPTIONS, req, text } from './helpers.js';

describe('CacheSimulator mixed TTLs', () => {
  it('bills 1h writes up to the last 1h marker and 5m writes after it (A/B/C)', () => {
    const sim = new CacheSimulator(OPTIONS);
    // system 1000 (1h marker), messages 500 (5m marker on the last), 100 unmarked tail.
    const first = req([text(1000, M1H)], [...chat(1, 500, { 0: M5 }), { role: 'assistant', content: 'y'.repeat(100) }]);
    const r1 = sim.send(first, 0);
    expect(r1.usage).toMatchObject({
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 1500,
      cache_creation: { ephemeral_1h_input_tokens: 1000, ephemeral_5m_input_tokens: 500 },
      input_tokens: 100,
    });
    expect(r1.cost?.total).toBeCloseTo((1000 * 2 + 500 * 1.25 + 100 * 1) / 1e6, 12);

    // 10 minutes later the 5m entry is gone, the 1h one is read: A = 1000, B = A, C = 1600.
    const second = req([text(1000, M1H)], [...chat(1, 500), { role: 'assistant', content: 'y'.repeat(100) }, { role: 'user', content: [text(50, M5, 'z')] }]);
    const r2 = sim.send(second, 10 * 60_000);
    expect(r2.usage).toMatchObject({
      cache_read_input_tokens: 1000,
      cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 650 },
      input_tokens: 0,
    });
    expect(r2.explain?.markers.map((b) => b.outcome)).toEqual(['read', 'write']);
  });

  it('bills 1h writes from the read to the 1h marker when a shorter entry is read', () => {
    const sim = new CacheSimulator(OPTIONS);
    sim.send(req([text(300, M5)], chat(1)), 0);
    const r = sim.send(req([text(300), text(700, M1H, 'b')], chat(1, 200, { 0: M5 })), 1000);
    expect(r.rejected).toBeNull();
    expect(r.usage).toMatchObject({
      cache_read_input_tokens: 300,
      cache_creation: { ephemeral_1h_input_tokens: 700, ephemeral_5m_input_tokens: 200 },
      input_tokens: 0,
    });
  });

  it('rejects a 1h marker after a 5m one with the API text, and changes nothing', () => {
    const sim = new CacheSimulator(OPTIONS);
    const r = sim.send(req([text(500, M5), text(500, M1H, 'b')], chat(1)), 0);
    expect(r.rejected).toEqual({ status: 400, message: REJECTION.ttlOrder });
    expect(r.rejected?.message).toMatchInlineSnapshot(`"a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block"`);
    expect(r.usage).toBeNull();
    expect(sim.entries()).toEqual([]);
  });

  it('rejects an unknown ttl', () => {
    const sim = new CacheSimulator(OPTIONS);
    const bad = { type: 'ephemeral', ttl: '2h' } as unknown as typeof M5;
    expect(sim.send(req([text(500, bad)], chat(1)), 0).rejected?.status).toBe(400);
  });
});
