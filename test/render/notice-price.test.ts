/**
 * The one-time prune notice is priced by the warm gate and by ④'s doomed rule
 * together (src/render/gate.ts `noticePrice`): a first warm prune must save more
 * than the notice's reads, and ④ sends a payload uncached only when the next
 * request will prune it. On a short session whose payloads do not pay for the
 * notice, economy then sends what conservative sends.
 */
import { describe, expect, it } from 'vitest';
import { noticePrice } from '../../src/render/gate.js';
import { compareTrace } from '../../src/replay/compare.js';
import { resolveProfile } from '../../src/models/profiles.js';
import { createTimeline } from '../../src/timeline/edit.js';
import { readTrace } from '../../src/trace/reader.js';

describe('the prune notice has a price', () => {
  it('costs its reads over the remaining requests until it is in the state', () => {
    const profile = resolveProfile('claude-sonnet-4-6');
    const state = createTimeline({ model: 'claude-sonnet-4-6', instructions: ['x'], tools: [] });
    expect(noticePrice(profile, state, 70, 10)).toBeCloseTo((70 * profile.prices.cacheRead * 10) / 1e6, 12);
    expect(noticePrice(profile, { ...state, pruneNotice: true }, 70, 10)).toBe(0);
  });

  it('economy is no dearer than conservative on the 16-request demo: nothing there is worth the notice', async () => {
    const load = () => readTrace('fixtures/demo.jsonl');
    const economy = await compareTrace(load, { policy: 'economy' });
    const conservative = await compareTrace(load, {});
    const cost = (c: typeof economy) => c.summaries.find((s) => s.id === 'cachepoint')!.cost;
    // Before the notice was priced: $0.0775 against $0.0762 (three prunes of 15–57 tokens paid a 70-token notice).
    expect(cost(economy)).toBeLessThanOrEqual(cost(conservative) * (1 + 1e-9));
    expect(economy.engine.some((r) => r.rendered.decisions.some((d) => d.type === 'notice'))).toBe(false);
    expect(economy.recalls.count).toBe(0);
  });
});
