/**
 * Masking peers are charged the recalls they force, in the comparison itself,
 * so the best peer is judged with recalls on both sides (src/replay/compare.ts
 * `chargePeerRecalls`).
 */
import { describe, expect, it } from 'vitest';
import { compareTrace, providerReplayOptions } from '../../src/replay/compare.js';
import { maskedRecalls } from '../../src/replay/masked-recalls.js';
import { replayAll } from '../../src/replay/replay.js';
import { readTrace } from '../../src/trace/reader.js';

const load = () => readTrace('fixtures/fanout.jsonl');

describe('masking peers pay their forced recalls', () => {
  it('charges openai_mask10 one priced round per response that needs a masked result, as cachepoint is charged its own', async () => {
    const options = { provider: 'openai', model: 'gpt-5.4' } as const;
    const charged = await compareTrace(load, options);
    const uncharged = await compareTrace(load, { ...options, recalls: false });
    const mask = charged.summaries.find((s) => s.id === 'openai_mask10')!;
    const plainMask = uncharged.summaries.find((s) => s.id === 'openai_mask10')!;
    const replayOptions = await providerReplayOptions('openai', load, { model: 'gpt-5.4' });
    const forced = maskedRecalls(await replayAll(load(), { ...replayOptions, plain: true }), 10);
    expect(forced.count).toBeGreaterThan(0);
    expect(mask.recalls).toMatchObject({ count: forced.count, rounds: forced.rounds.length, byReason: { mask: forced.count } });
    expect(mask.recalls!.cost).toBeGreaterThan(0);
    expect(mask.cost).toBeCloseTo(plainMask.cost + mask.recalls!.cost, 10);
    expect(mask.vsIdeal).toBeCloseTo(mask.cost / charged.summaries.find((s) => s.id === 'ideal')!.cost, 10);
    // vs none keeps its base (the no-cache price of the session), like every other row.
    expect(mask.vsNone! / mask.cost).toBeCloseTo(
      charged.summaries.find((s) => s.id === 'openai_default')!.vsNone! / charged.summaries.find((s) => s.id === 'openai_default')!.cost,
      8,
    );
    // Measured on 2026-11-30: without the charge the masking peer is the cheapest (×0.87 of the full-history
    // peers); with it, a full-history peer is the best peer again.
    const best = (ss: typeof charged.summaries) =>
      ss.filter((s) => !['cachepoint', 'ideal', 'ideal_5m', 'none'].includes(s.id)).reduce((a, b) => (a.cost < b.cost ? a : b)).id;
    expect(best(uncharged.summaries)).toBe('openai_mask10');
    expect(best(charged.summaries)).not.toBe('openai_mask10');
    // Peers that keep the whole history force nothing and are not touched.
    for (const s of charged.summaries.filter((x) => x.id !== 'openai_mask10' && x.id !== 'cachepoint'))
      expect(s.cost).toBe(uncharged.summaries.find((u) => u.id === s.id)!.cost);
  });
});
