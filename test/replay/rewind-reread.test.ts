import { describe, expect, it } from 'vitest';
import { CacheSimulator } from '../../src/sim/simulator.js';
import type { GenerateOptions } from '../../src/synthetic/generate.js';
import { expectNoBust, loopSends } from '../helpers/loop-sends.js';
import type { LoopDisturbance, SentRequest } from '../helpers/plain-loop.js';

/**
 * A plain loop that rewinds to the turn's start (fewer messages than stored) and then sends its whole history again:
 * the provider still holds the entries the requests before the rewind wrote, so the request that appends past the
 * cut again must read them (conversation/cut-shadow.ts), not re-write the history (found by the judge's disturbed
 * loop, judge-6xx).
 */
async function loop(options: GenerateOptions, disturb: LoopDisturbance, policy?: 'economy'): Promise<SentRequest[]> {
  return loopSends(options, disturb, { ...(policy ? { policy } : {}), conversationId: 'rewind' });
}

/** The request that sends the history again after each rewind: the plan predicts the read the provider makes. */
function expectPlannedReads(sent: readonly SentRequest[]): void {
  const sim = new CacheSimulator();
  sent.forEach((s, i) => {
    const read = sim.send(s.params, s.at).usage?.cache_read_input_tokens;
    if (i > 0 && sent[i - 1]!.kind === 'rewind') expect(s.plan.usage.cache_read_input_tokens, `request ${s.index}`).toBe(read);
  });
}

const BASE: Omit<GenerateOptions, 'seed' | 'model'> = {
  profile: 'coding',
  rounds: { median: 12, min: 1, max: 60 },
  idleGaps: { over5m: 0, over1h: 0 },
  fanout: { rounds: 0 },
  hugeResults: 0,
  resultScale: 1,
  thinkingRate: 0.65,
  redactedRate: 0.2,
  tail: false,
  revisits: false,
  distinctSearches: true,
  distinctLookups: true,
};

describe('a rewind to the turn start, then the whole history again', () => {
  // judge-632 (claude-opus-5-5, one turn): the stored state was lost at request 6, so the requests after it leave the
  // open loop's earlier thinking out (conversation/unvouched.ts, sticky). The rewind cuts all of it; the request that
  // sends it again leaves out all of the loop's thinking (the cut response is the request before the cut's), the same
  // bytes as before up to request 6's response. The cut's shadow must give back the entries up to there: its take-back
  // stopped at the first left-out thinking block of the open loop, so the ledger knew nothing past the cut and the
  // entry just before request 6's thinking went unread (read 4,503 tokens, the envelope; re-wrote 19,510).
  it('on a model that binds thinking, after a lost state, reads the entry before the first thinking it now leaves out', async () => {
    const sent = await loop(
      { ...BASE, seed: 'judge-632', requests: 19, hugeRate: 0, errorRate: 0, hides: true, envelopeChange: true, model: 'claude-opus-5-5' },
      { deleteBefore: [6], rewindAt: [16] },
    );
    expect(sent.filter((s) => s.kind === 'rewind').map((s) => s.plan.resync?.reason)).toEqual(['history_truncated']);
    expectNoBust(sent);
  });

  // judge-665 (claude-sonnet-5, economy, one turn): the stored state was lost at request 11, and the render from the
  // messages alone did not prune (a lost state changes nothing it can avoid), so the requests after it sent round 5's
  // Read in full though it repeats round 2's. The request that sends the history again after the rewind took every
  // re-sent round for a new one (the cut request was at the turn's start) and replaced that Read with a note (dedupe:
  // free only for a result no request has sent yet): the bytes changed at position 29, where the provider still held
  // the entry at 28 that the requests before the lost state wrote (read 6,914 tokens, re-wrote 8,150).
  it('under economy, makes no decision on a re-sent round that only a new round gets', async () => {
    const sent = await loop(
      {
        ...BASE,
        seed: 'judge-665',
        requests: 27,
        hugeRate: 0.002,
        errorRate: 0.04,
        hides: false,
        envelopeChange: false,
        revisits: true,
        model: 'claude-sonnet-5',
      },
      { deleteBefore: [11], rewindAt: [22] },
      'economy',
    );
    expectNoBust(sent);
  });

  // judge-627 (claude-fable-5-1, research, economy, one turn): a rewind at request 7 and the history again. The prune
  // weighs a round on its first chance, once, when it leaves the kept rounds; the re-sent rounds had had theirs
  // before the cut, but the request after it renders from the cut request's last render (the turn's start), so every
  // one of them had its first chance again, and results of rounds 1-2 the requests before had kept were pruned:
  // the bytes changed right after the user message and the request read only what the cut request read.
  it('under economy, gives the re-sent rounds no second first chance', async () => {
    const sent = await loop(
      {
        ...BASE,
        seed: 'judge-627',
        profile: 'research',
        requests: 13,
        hugeRate: 0,
        resultScale: 2,
        thinkingRate: 0,
        redactedRate: 0.05,
        errorRate: 0,
        hides: true,
        envelopeChange: false,
        revisits: true,
        model: 'claude-fable-5-1',
      },
      { rewindAt: [7] },
      'economy',
    );
    expectNoBust(sent);
    const sim = new CacheSimulator();
    const read = sent.map((s) => sim.send(s.params, s.at).usage?.cache_read_input_tokens ?? 0);
    const cut = sent.findIndex((s) => s.kind === 'rewind');
    expect(sent[cut + 1]!.kind).toBe('request');
    // More than the cut request read (the envelope and the user message): the re-sent stretch is read.
    expect(read[cut + 1]).toBeGreaterThan(read[cut]! + 4_000);
  });

  // judge-82 (claude-opus-5-5, research, a tail per request): the stored state was deleted before request 10, so the
  // requests after it sent no earlier tail in the history (which tails the lost requests sent is unknown). The rewind
  // to the turn's start sends the user message and its own tail, and writes its entry there; the request that sends
  // the history again keeps that tail in the history where it was sent (render/bind.ts foldSentTail: a model that
  // binds thinking), so its stream parts from the requests before the rewind right after the user message. The cut's
  // shadow was matched against the stream without that fold and taken for the same, so the ledger held the shadow's
  // entries (which no longer match) instead of the rewind's on its tail: no marker reached it (missed 13, read the
  // envelope only).
  it('on a model that binds thinking, with a tail, reads the entry the rewind wrote on its tail', async () => {
    const sent = await loop(
      {
        ...BASE,
        seed: 'judge-82',
        profile: 'research',
        requests: 21,
        rounds: { median: 8, min: 1, max: 60 },
        idleGaps: { over5m: 2, over1h: 1 },
        hugeRate: 0.005,
        thinkingRate: 0.3,
        redactedRate: 0,
        errorRate: 0.1,
        tail: true,
        hides: false,
        envelopeChange: false,
        revisits: true,
        model: 'claude-opus-5-5',
      },
      { deleteBefore: [10], rewindAt: [14] },
    );
    expectNoBust(sent);
    expectPlannedReads(sent);
  });

  // judge-59 (claude-opus-4-8, economy, thinking on 90 % of the responses): economy leaves out the thinking of earlier
  // turns, but never the latest assistant message's. A rewind to the start of turn 3 makes turn 2's answer the latest
  // assistant message again, so the cut request sends its thinking (as the turn's first request did): its stream parts
  // from the request before the rewind before the cut. The cut kept no shadow then, and the request that sends the
  // history again (the thinking left out again) forgot the entries the requests before the rewind wrote past the cut:
  // missed the entry at 48, read 14,362 tokens, re-wrote 15,191.
  it('under economy, reads past the cut when the rewind sent the thinking of the latest answer again', async () => {
    const sent = await loop(
      {
        ...BASE,
        seed: 'judge-59',
        requests: 60,
        rounds: { median: 6, min: 1, max: 60 },
        fanout: { rounds: 1, min: 3, max: 12 },
        hugeRate: 0.005,
        thinkingRate: 0.9,
        redactedRate: 0.2,
        errorRate: 0.04,
        hides: false,
        envelopeChange: false,
        model: 'claude-opus-4-8',
      },
      { rewindAt: [22] },
      'economy',
    );
    expectNoBust(sent);
    expectPlannedReads(sent);
  });
});
