/**
 * Economy's doomed rule (prune-rule.ts `doomedFrom`) sends the newest round's bulky payloads uncached when the next
 * request's gate will prune them. Its copy of the gate's batch rule for a first prune (`worthTheNotice`) left out
 * what adding the notice strips on a model that drops earlier thinking (gate.ts `noticeStripPrice`), which the gate
 * counts (judge24: judge-2220, claude-opus-4, 15 requests). There the strip outweighs every batch: the gate never
 * pruned, and each payload sent uncached was written by the next request at 1.25× (economy 8.7 % over conservative).
 * The strip is priced where the next request's batch starts changing bytes, at the first doomed payload (`from`), as
 * the gate prices it at its batch's first item: priced to the stream's end, it also counts the doomed payloads as the
 * strip's re-write, and the rule holds back payloads the next request would prune; once written they are kept
 * (check24: judge-2224, claude-3-5-haiku, requests 1-11, economy $0.11674 -> $0.11817).
 */
import { describe, expect, it } from 'vitest';
import { sessionOptions } from '../bench/judge.js';
import { compareTrace } from '../../src/replay/compare.js';
import { generateTrace } from '../../src/synthetic/generate.js';

describe("economy's doomed payloads on a model that strips earlier thinking", () => {
  it('judge-2220: what a request sends uncached, the next one prunes', async () => {
    const events = generateTrace(sessionOptions(2220));
    const econ = await compareTrace(() => events, { policy: 'economy', onWarning: () => {} });
    expect(econ.engine[0]!.rendered.profile.keepsThinking).toBe(false);
    const unread: number[] = [];
    for (let i = 0; i + 1 < econ.engine.length; i++) {
      const plan = econ.engine[i]!.rendered.plan;
      const pruned = econ.engine[i + 1]!.rendered.decisions.some((d) => d.type === 'prune');
      if (plan.warm && plan.usage.input_tokens > 0 && !pruned) unread.push(i);
    }
    expect(unread).toEqual([]);
    const cons = await compareTrace(() => events, { policy: 'conservative', onWarning: () => {} });
    const cost = (c: typeof econ) => c.summaries.find((s) => s.id === 'cachepoint')!.cost;
    expect(cost(econ)).toBeLessThanOrEqual(cost(cons) * 1.001);
  });

  it("judge-2224: the first rounds' bulky reads are sent uncached, and the next request prunes each", async () => {
    const events = generateTrace(sessionOptions(2224));
    const econ = await compareTrace(() => events, { policy: 'economy', onWarning: () => {} });
    expect(econ.engine[0]!.rendered.profile.keepsThinking).toBe(false);
    const sent: number[] = [];
    const unread: number[] = [];
    for (let i = 0; i + 1 < econ.engine.length; i++) {
      const plan = econ.engine[i]!.rendered.plan;
      if (!plan.warm || plan.usage.input_tokens === 0) continue;
      sent.push(i);
      if (!econ.engine[i + 1]!.rendered.decisions.some((d) => d.type === 'prune')) unread.push(i);
    }
    // Requests 1-4 each end on a bulky read the next request prunes (its batch starts there, the notice's strip
    // priced from the turn's first thinking to it): sent uncached. With the strip priced to the stream's end, the
    // rule held back at all four, each payload was written and kept, and economy cost 1.2 % more.
    expect(sent.slice(0, 4)).toEqual([1, 2, 3, 4]);
    expect(unread).toEqual([]);
  });
});
