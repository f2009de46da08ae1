/**
 * spendByKind splits a replay's simulated dollars by kind of block and by how
 * the tokens were billed; the parts add up to the run's cost.
 */
import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { SPEND_KINDS, spendByKind } from '../../src/replay/spend.js';
import { readTrace } from '../../src/trace/reader.js';

describe('where the dollars go', () => {
  it('adds up to the run cost, per billing field, under both policies', async () => {
    for (const policy of ['conservative', 'economy'] as const) {
      const c = await compareTrace(() => readTrace('fixtures/coding.jsonl'), { policy });
      const s = spendByKind(c);
      const cost = c.summaries.find((x) => x.id === 'cachepoint')!.cost;
      const sum = SPEND_KINDS.reduce((n, k) => n + s[k].total, 0);
      expect(sum).toBeCloseTo(cost, 9);
      const reads = c.engineResults.reduce((n, r) => n + (r.cost?.cacheRead ?? 0), 0);
      expect(SPEND_KINDS.reduce((n, k) => n + s[k].read, 0)).toBeCloseTo(reads, 9);
      for (const k of SPEND_KINDS) expect(s[k].total).toBeCloseTo(s[k].read + s[k].write + s[k].input + s[k].output, 12);
      // The coding fixture's bill is the envelope and the text of the files being edited.
      expect(s.envelope.total / cost).toBeGreaterThan(0.25);
      expect(s['file texts'].total / cost).toBeGreaterThan(0.35);
      if (policy === 'conservative') expect(s['notes, notices, summaries'].total).toBe(0);
      else expect(s['notes, notices, summaries'].total).toBeGreaterThan(0);
      if (c.recalls.count === 0) expect(s['recall rounds'].total).toBe(0);
    }
  });

  it('puts inserted recall rounds in their own kind, with their output tokens', async () => {
    // long-idle: one forced recall under both policies (a cold prune of a file read long before).
    const c = await compareTrace(() => readTrace('fixtures/long-idle.jsonl'), { policy: 'economy' });
    expect(c.recalls.count).toBeGreaterThan(0);
    const s = spendByKind(c);
    expect(s['recall rounds'].total).toBeCloseTo(c.recalls.cost, 9);
    expect(s['recall rounds'].output).toBeCloseTo(c.recalls.outputCost, 12);
  });
});
