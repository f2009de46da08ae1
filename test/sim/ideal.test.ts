import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BASELINES,
  compareStrategies,
  contentBlocks,
  idealBound,
  isMarkable,
  simulateAll,
  stripCacheControl,
  totalsOf,
  type SimParams,
  type SimRequest,
} from '../../src/sim/index.js';
import { chat, M1H, M5, MIN, OPTIONS, req, sessionArb, text } from './helpers.js';

describe('idealBound', () => {
  it('reads what was sent within 5 minutes and writes only what the next request reads', () => {
    const requests: SimRequest[] = [
      { at: 0, params: req([text(500)], chat(1, 100)) },
      { at: 1 * MIN, params: req([text(500)], chat(3, 100)) },
      { at: 2 * MIN, params: req([text(500)], chat(5, 100)) },
    ];
    const { ideal5m } = idealBound(requests, OPTIONS);
    expect(ideal5m.requests.map(({ read, write5m, write1h, input }) => ({ read, write5m, write1h, input }))).toEqual([
      { read: 0, write5m: 600, write1h: 0, input: 0 },
      { read: 600, write5m: 200, write1h: 0, input: 0 },
      { read: 800, write5m: 0, write1h: 0, input: 200 },
    ]);
  });

  it('chooses 1h writes when a prefix comes back after 5–60 minutes more than once', () => {
    const requests: SimRequest[] = [0, 20, 40, 60].map((m) => ({ at: m * MIN, params: req([text(1000)], chat(1, 10 + m)) }));
    const { ideal, ideal5m } = idealBound(requests, OPTIONS);
    expect(ideal.requests[0]?.write1h).toBe(1000);
    expect(ideal.requests.slice(1).map((r) => r.read)).toEqual([1000, 1000, 1000]);
    expect(ideal5m.requests.every((r) => r.read === 0)).toBe(true);
    expect(ideal.cost).toBeLessThan(ideal5m.cost);
  });

  it('stays below a strategy whose 1h write upgrades a prefix it read from a 5m entry (the A/B/C rule)', () => {
    // The system is written 5m, read a minute later by a request writing a 1h entry after it,
    // and read again through that entry 40 minutes later: the system paid 1.25 + 0.1 + 0.1.
    const msg = { role: 'user' as const, content: [text(200, M1H, 'm')] };
    const session: SimRequest[] = [
      { at: 0, params: req([text(1000, M5)], []) },
      { at: 1 * MIN, params: req([text(1000)], [msg]) },
      { at: 41 * MIN, params: req([text(1000)], [msg, { role: 'assistant', content: 'y'.repeat(50) }]) },
    ];
    const results = simulateAll(session, OPTIONS);
    expect(results.map((r) => r.usage?.cache_read_input_tokens)).toEqual([0, 1000, 1200]);
    const { ideal } = idealBound(session, OPTIONS);
    expect(ideal.cost).toBeLessThanOrEqual(totalsOf(results).cost);
  });

  it('caches nothing shorter than the minimum', () => {
    const { ideal } = idealBound(
      [0, 1000].map((at) => ({ at, params: req([text(50)], chat(1, 10)) })),
      OPTIONS,
    );
    expect(ideal.requests.every((r) => r.read === 0 && r.write5m === 0 && r.input === 60)).toBe(true);
  });

  it('is never more expensive than any baseline, and ideal ≤ ideal_5m (random sessions)', () => {
    fc.assert(
      fc.property(sessionArb, (session) => {
        const { ideal, ideal5m } = idealBound(session, OPTIONS);
        expect(ideal.cost).toBeLessThanOrEqual(ideal5m.cost + 1e-12);
        for (const b of BASELINES) {
          const cost = totalsOf(
            simulateAll(
              session.map((r) => ({ ...r, params: b.apply(r.params) })),
              OPTIONS,
            ),
          ).cost;
          expect(ideal.cost).toBeLessThanOrEqual(cost + 1e-12);
          if (b.id !== 'system1h_last') expect(ideal5m.cost).toBeLessThanOrEqual(cost + 1e-12);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('is never more expensive than random marker placements (any blocks, up to 4, 1h first)', () => {
    const placements = fc.array(fc.record({ picks: fc.array(fc.nat(), { maxLength: 4 }), oneHour: fc.nat({ max: 4 }) }), { minLength: 14, maxLength: 14 });
    fc.assert(
      fc.property(sessionArb, placements, (session, choices) => {
        const marked = session.map((r, i) => ({ ...r, params: randomMarkers(r.params, choices[i]!.picks, choices[i]!.oneHour) }));
        const results = simulateAll(marked, OPTIONS);
        expect(results.every((r) => r.rejected === null)).toBe(true);
        const { ideal } = idealBound(session, OPTIONS);
        expect(ideal.cost).toBeLessThanOrEqual(totalsOf(results).cost + 1e-12);
      }),
      { numRuns: 120 },
    );
  });

  it('is reported with every strategy relative to none and to the ideal', () => {
    const session = fc.sample(sessionArb, { numRuns: 1, seed: 7 })[0]!;
    const { summaries } = compareStrategies(session, OPTIONS);
    expect(summaries.map((s) => s.id)).toEqual([...BASELINES.map((b) => b.id), 'ideal_5m', 'ideal']);
    const none = summaries.find((s) => s.id === 'none')!;
    const ideal = summaries.find((s) => s.id === 'ideal')!;
    expect(none.vsNone).toBe(1);
    expect(ideal.vsIdeal).toBe(1);
    for (const s of summaries) expect(s.vsIdeal!).toBeGreaterThanOrEqual(1 - 1e-9);
  });
});

/** Marks up to 4 markable blocks chosen by `picks` (indices modulo the markable count); the first `oneHour` get ttl 1h. */
function randomMarkers(params: SimParams, picks: readonly number[], oneHour: number): SimParams {
  const plain = stripCacheControl(params) as SimParams & { tools?: unknown[]; system?: unknown[] };
  const system = (Array.isArray(plain.system) ? [...plain.system] : []) as unknown as Record<string, unknown>[];
  const tools = [...(plain.tools ?? [])] as unknown as Record<string, unknown>[];
  const messages = plain.messages.map((m) => ({ ...m, content: [...contentBlocks(m.content)] as Record<string, unknown>[] }));
  const slots: { list: Record<string, unknown>[]; i: number }[] = [];
  for (let i = 0; i < tools.length; i++) slots.push({ list: tools, i });
  for (let i = 0; i < system.length; i++) if (isMarkable(system[i])) slots.push({ list: system, i });
  for (const m of messages) for (let i = 0; i < m.content.length; i++) if (isMarkable(m.content[i])) slots.push({ list: m.content, i });
  const chosen = [...new Set(picks.map((p) => p % slots.length))].sort((a, b) => a - b);
  chosen.forEach((k, n) => {
    const s = slots[k]!;
    s.list[s.i] = { ...s.list[s.i], cache_control: n < oneHour ? { type: 'ephemeral', ttl: '1h' } : { type: 'ephemeral' } };
  });
  return { ...plain, ...(tools.length ? { tools } : {}), system, messages } as unknown as SimParams;
}
