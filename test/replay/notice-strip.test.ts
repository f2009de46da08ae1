/**
 * The one-time prune notice is a text block in a user message. On a model that
 * strips earlier thinking (a user block other than a tool result drops every
 * thinking block before it), adding it drops the open turn's thinking, so the
 * history after the first such block is re-written. The warm gate priced the
 * notice as its own reads only, and economy's first prune could cost far more
 * than it saved (the judge's sweep, test/bench/judge.ts seed judge-46:
 * claude-sonnet-4, 10 requests with a 20–30 call fan-out, economy 1.40×
 * conservative: 1.1k tokens saved, 20.6k re-written).
 */
import { describe, expect, it } from 'vitest';
import { compareTrace } from '../../src/replay/compare.js';
import { generateTrace } from '../../src/synthetic/generate.js';

const JUDGE_46 = {
  seed: 'judge-46',
  profile: 'coding',
  requests: 10,
  rounds: { median: 6, min: 1, max: 60 },
  fanout: { rounds: 1, min: 20, max: 30 },
  hugeRate: 0.002,
  thinkingRate: 0.65,
  redactedRate: 0.05,
  errorRate: 0.04,
  hides: true,
  revisits: true,
  model: 'claude-sonnet-4',
} as const;

describe('economy on a model that strips earlier thinking', () => {
  it('does not add the prune notice where the thinking it strips costs more than the prune saves (judge-46)', async () => {
    const events = generateTrace(JUDGE_46);
    const cost = async (policy: 'conservative' | 'economy') =>
      (await compareTrace(() => events, { policy, onWarning: () => {} })).summaries.find((s) => s.id === 'cachepoint')!.cost;
    const conservative = await cost('conservative');
    const economy = await cost('economy');
    expect(economy).toBeLessThanOrEqual(conservative * 1.01);
  });
});
