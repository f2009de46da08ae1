import { describe, expect, it } from 'vitest';
import type { ReplayedRequest } from '../../src/replay/replay.js';
import { replay } from '../../src/replay/replay.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { type SentRequest, throughPrepare } from '../helpers/plain-loop.js';

/**
 * A plain loop retries a request while its conversation store is down (judge-945 of the judge's sweep,
 * claude-opus-4, research, with agent hides). The retry repeats the call, the agent's hide included: with nothing
 * saved (plan.revision null) the first send's hide is not remembered, so a retry without it would send other bytes.
 * The judge's loop dropped the hide on a retry (as if the first send had stored it) and counted the difference.
 */
describe('a retry while the store is down', () => {
  it("sends its first send's bytes, markers aside", async () => {
    const events = generateTrace({
      seed: 'judge-945',
      profile: 'research',
      requests: 20,
      rounds: { median: 4, min: 1, max: 60 },
      idleGaps: { over5m: 0, over1h: 1 },
      fanout: { rounds: 0 },
      hugeResults: 0,
      hugeRate: 0,
      resultScale: 2,
      thinkingRate: 0,
      redactedRate: 0.05,
      errorRate: 0.1,
      tail: false,
      hides: true,
      envelopeChange: false,
      revisits: true,
      distinctSearches: true,
      distinctLookups: true,
      model: 'claude-opus-4',
    });
    const expected: ReplayedRequest[] = [];
    for await (const r of replay(events, { extras: { max_tokens: 2048 }, policy: 'economy', onWarning: () => {} })) expected.push(r);
    const sent: SentRequest[] = [];
    const disturb = { storeDownAt: [13, 14], retryAt: [13] };
    await throughPrepare(events, expected, { conversationId: 'retry', render: { policy: 'economy' }, disturb, onSent: (s) => sent.push(s) });
    const [first, retry] = sent.filter((s) => s.index === 13);
    // Rendered from this process's copy of the conversation (the store is down: nothing saved, local-copy.ts).
    expect([first?.kind, retry?.kind, first?.plan.localState?.reason, retry?.plan.revision]).toEqual(['request', 'retry', 'store_unavailable', null]);
    // The request applies the agent's hide of a WebFetch result.
    expect(first!.plan.hides?.map((h) => h.decision.type)).toEqual(['hide']);
    const bytes = (s: SentRequest): string => JSON.stringify(s.params, (key, value) => (key === 'cache_control' ? undefined : value));
    expect(bytes(retry!)).toBe(bytes(first!));
  });
});
