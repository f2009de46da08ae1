import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { idealBound } from '../../src/sim/ideal.js';
import { generateTrace } from '../../src/synthetic/generate.js';

/**
 * A model that strips earlier thinking (claude-opus-4) drops every thinking block before a user block other than a
 * tool result. judge-370 (the judge's sweep): one long first turn (47 rounds, ~8 minutes) in which a runtime reminder
 * injected with the results of round 5 strips the thinking before it; the 13k-token Read of round 2 sits before
 * the first thinking still sent. The next user message strips that thinking, so turn 2's first request differs from
 * it on and can read everything before it, if an entry there is still warm. Before the fix turn 1 had no ② (no
 * previous turn): the entry there, written once, expired during the turn, and turn 2 re-wrote the 13k-token Read
 * (conservative 3.6 % over its own ideal away from what clairvoyance buys).
 */
describe('a model that strips thinking: the stretch before the thinking the next turn strips', () => {
  it('stays cached through a long turn, so the next turn reads it (judge-370)', async () => {
    const events = generateTrace({
      seed: 'judge-370',
      profile: 'coding',
      requests: 49,
      rounds: { median: 6, min: 1, max: 60 },
      idleGaps: { over5m: 0, over1h: 0 },
      fanout: { rounds: 0 },
      hugeResults: 0,
      hugeRate: 0.005,
      resultScale: 1,
      thinkingRate: 0.9,
      redactedRate: 0.2,
      errorRate: 0,
      tail: false,
      hides: false,
      envelopeChange: false,
      revisits: true,
      distinctSearches: true,
      model: 'claude-opus-4',
    });
    const c = await compareTrace(() => events, { onWarning: () => {} });
    const first = c.engine.findIndex((r) => r.turn === 2);
    expect(first).toBeGreaterThan(40);
    const ideal = idealBound(c.engine.map((r) => ({ at: r.at, params: r.request }))).ideal5m.requests;
    const usage = c.engineResults[first]!.usage!;
    // The ideal reads up to the first thinking the new turn strips (18.6k tokens) and writes the rest.
    expect(ideal[first]!.read).toBeGreaterThan(15_000);
    expect(usage.cache_read_input_tokens).toBe(ideal[first]!.read);
    expect(c.engineResults[first]!.cost!.total).toBeCloseTo(ideal[first]!.cost, 6);
    // Every request of turn 1 once that thinking was sent: the entry before it is read (refreshed), not re-written.
    const kept = c.engine.findIndex((r, i) => i > 6 && r.turn === 1);
    for (let i = kept; i < first; i++) expect(c.engineResults[i]!.explain!.markers.some((m) => m.outcome === 'hit' && m.position === 25)).toBe(true);
    expect(c.summaries.find((s) => s.id === 'cachepoint')!.busts).toBe(0);
  });
});
