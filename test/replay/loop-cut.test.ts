import { describe, expect, it } from 'vitest';
import type { ReplayedRequest } from '../../src/replay/replay.js';
import { replay } from '../../src/replay/replay.js';
import { CacheSimulator } from '../../src/sim/simulator.js';
import { generateTrace } from '../../src/synthetic/generate.js';
import { validateRequest } from '../../src/testing/fake-server-validate.js';
import { type SentRequest, throughPrepare } from '../helpers/plain-loop.js';

/**
 * A plain loop that cuts its history back to the turn's start (a rewind: fewer messages than stored) and then goes
 * on, on a model that binds thinking with a live view as the tail (judge-278 of the judge's sweep, claude-mythos-5-1).
 * ④ sits on the sent tail there (cache-points.ts), so the request before the cut holds an entry past its stable
 * stream; the cut's shadow (conversation/cut-shadow.ts) read that index from the stable stream and threw a
 * TypeError out of `prepare`.
 */
describe('a plain loop that rewinds to the turn start, on a model that binds thinking, with a tail', () => {
  const events = generateTrace({
    seed: 'judge-278',
    profile: 'coding',
    requests: 21,
    rounds: { median: 12, min: 1, max: 60 },
    idleGaps: { over5m: 0, over1h: 0 },
    fanout: { rounds: 0 },
    hugeResults: 0,
    hugeRate: 0.002,
    resultScale: 1,
    thinkingRate: 0.9,
    redactedRate: 0.05,
    errorRate: 0.1,
    tail: true,
    hides: false,
    envelopeChange: false,
    revisits: true,
    distinctSearches: true,
    distinctLookups: true,
    model: 'claude-mythos-5-1',
  });
  const loop = async (): Promise<SentRequest[]> => {
    const expected: ReplayedRequest[] = [];
    for await (const r of replay(events, { extras: { max_tokens: 2048 }, onWarning: () => {} })) expected.push(r);
    const sent: SentRequest[] = [];
    await throughPrepare(events, expected, { conversationId: 'rewind', disturb: { rewindAt: [12] }, onSent: (s) => sent.push(s) });
    expect(sent).toHaveLength(expected.length + 1);
    return sent;
  };

  it('prepares every request (the cut shadow keeps only entries on the stable stream) and each is well formed', async () => {
    const sent = await loop();
    expect(sent.filter((s) => s.kind === 'rewind').map((s) => s.plan.resync?.reason)).toEqual(['history_truncated']);
    for (const s of sent) expect(validateRequest(s.params)?.message, `request ${s.index} (${s.kind})`).toBeUndefined();
  });

  // The request that appends past the cut again re-sends the first response of the branch it cut, produced under the
  // request before the cut (its tail kept in the history), not under the cut request: prepare knows it by the record's
  // cutMessage and leaves its thinking out (conversation/unvouched.ts); without that the API refuses it.
  it('sends no request the API refuses and no bust', async () => {
    const sim = new CacheSimulator();
    for (const s of await loop()) {
      const r = sim.send(s.params, s.at);
      expect(r.rejected?.message, `request ${s.index} (${s.kind})`).toBeUndefined();
      expect(r.explain?.bust, `request ${s.index} (${s.kind})`).toBeFalsy();
    }
  });
});
